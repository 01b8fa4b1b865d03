package io.dask4j.runtime.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.dask4j.comm.Address;
import io.dask4j.comm.Comm;
import io.dask4j.comm.Message;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link BatchedSend#pokeLater}: rows that may wait an interval are never lost and ride along with the next write. */
@Timeout(60)
class BatchedSendLazyTest {

    /** Records what is written, each write unpacked into its messages. */
    private static final class RecordingComm implements Comm {
        final LinkedBlockingQueue<List<Message>> writes = new LinkedBlockingQueue<>();

        @Override
        public void write(Message message) {
            writes.add(message.op().equals(Batches.OP) ? Batches.unpack(message) : List.of(message));
        }

        @Override
        public Message read() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void close() {
        }

        @Override
        public void abort() {
        }

        @Override
        public boolean isClosed() {
            return false;
        }

        @Override
        public Address localAddress() {
            return Address.inproc("here");
        }

        @Override
        public Address peerAddress() {
            return Address.inproc("peer");
        }
    }

    private static List<Object> releasedKeys(List<Message> write) {
        List<Object> keys = new ArrayList<>();
        for (Message m : write) {
            if (m.op().equals(Ops.RELEASE_KEYS)) {
                keys.addAll(m.getList("keys"));
            }
        }
        return keys;
    }

    @Test
    void lazyRowsAloneAreWrittenByTheSenderOnceTheirIntervalHasPassed() throws Exception {
        RecordingComm comm = new RecordingComm();
        BatchedSend out = new BatchedSend(comm, TimeUnit.MILLISECONDS.toNanos(20), 100, e -> { });
        ColumnBatch releases = new ColumnBatch(Ops.RELEASE_KEYS, "keys");
        out.addSource(releases);

        assertThat(releases.add("k1")).isTrue();
        out.pokeLater();
        List<Message> write = comm.writes.poll(10, TimeUnit.SECONDS);

        assertThat(write).as("written without any other write to carry it").isNotNull();
        assertThat(releasedKeys(write)).containsExactly("k1");
        out.abort();
    }

    @Test
    void theNextFlushCarriesLazyRowsWithItsOwnMessage() throws Exception {
        RecordingComm comm = new RecordingComm();
        // An interval far longer than the test: only the flush can write the lazy row.
        BatchedSend out = new BatchedSend(comm, TimeUnit.SECONDS.toNanos(600), 100, e -> { });
        ColumnBatch releases = new ColumnBatch(Ops.RELEASE_KEYS, "keys");
        out.addSource(releases);

        releases.add("k1");
        out.pokeLater();
        out.offer(Message.of("submit"));
        out.flush();
        List<Message> write = comm.writes.poll(10, TimeUnit.SECONDS);

        assertThat(write).extracting(Message::op).containsExactly("submit", Ops.RELEASE_KEYS);
        assertThat(releasedKeys(write)).containsExactly("k1");
        assertThat(comm.writes.poll(200, TimeUnit.MILLISECONDS)).as("nothing left for the sender").isNull();
        out.abort();
    }

    @Test
    void noLazyRowIsLostWhateverTheInterleavingWithFlushes() throws Exception {
        RecordingComm comm = new RecordingComm();
        BatchedSend out = new BatchedSend(comm, TimeUnit.MILLISECONDS.toNanos(1), 100, e -> { });
        ColumnBatch releases = new ColumnBatch(Ops.RELEASE_KEYS, "keys");
        out.addSource(releases);
        int rows = 5_000;

        Thread flusher = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < rows / 10; i++) {
                out.offer(Message.of("submit"));
                out.flush();
            }
        });
        for (int i = 0; i < rows; i++) {
            if (releases.add("k" + i)) {
                out.pokeLater();
            }
        }
        flusher.join();

        List<Object> seen = new ArrayList<>();
        while (seen.size() < rows) {
            List<Message> write = comm.writes.poll(10, TimeUnit.SECONDS);
            assertThat(write).as("rows still unwritten after 10 s: " + (rows - seen.size())).isNotNull();
            seen.addAll(releasedKeys(write));
        }
        List<Object> expected = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
            expected.add("k" + i);
        }
        assertThat(seen).containsExactlyElementsOf(expected);
        out.abort();
    }
}
