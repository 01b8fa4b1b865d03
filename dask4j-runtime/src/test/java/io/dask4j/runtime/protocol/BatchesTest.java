package io.dask4j.runtime.protocol;

import io.dask4j.comm.Address;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.Comms;
import io.dask4j.comm.Frame;
import io.dask4j.comm.Listener;
import io.dask4j.comm.Message;
import io.dask4j.comm.ProtocolException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BatchesTest {
    @Test
    void packedMessagesUnpackWithTheirFieldsAndFrames() {
        Message a = Message.of("a", Map.of("x", 1L));
        Message b = Message.of("b", Map.of("y", "z"), List.of(Frame.of(new byte[]{1, 2}), Frame.of(new byte[]{3})));
        Message c = Message.of("c");
        List<Message> out = Batches.unpack(Batches.pack(List.of(a, b, c)));
        assertThat(out).extracting(Message::op).containsExactly("a", "b", "c");
        assertThat(out.get(0).getLong("x")).isEqualTo(1L);
        assertThat(out.get(1).frames()).hasSize(2);
        assertThat(out.get(1).frame(1).toByteArray()).containsExactly(3);
        assertThat(out.get(2).frames()).isEmpty();
    }

    @Test
    void aBatchReferringToMissingFramesIsAProtocolError() {
        Message bad = Message.of(Batches.OP, Map.of("msgs", List.of(Map.of("op", "x", "_f", List.of(0L, 3L)))));
        assertThatThrownBy(() -> Batches.unpack(bad)).isInstanceOf(ProtocolException.class);
    }

    @Test
    void columnBatchesCollectRowsAndDictionaryEncode() {
        ColumnBatch batch = new ColumnBatch("rows", 1, "k", "where");
        assertThat(batch.add("a", "w1")).isTrue();
        assertThat(batch.add("b", "w2")).isFalse();
        batch.add("c", "w1");
        Message m = batch.take();
        assertThat(m.getList("k")).containsExactly("a", "b", "c");
        assertThat(m.getList("where")).containsExactly(0L, 1L, 0L);
        assertThat(ColumnBatch.decoded(m, "where", m.getList("where"), 2)).isEqualTo("w1");
        assertThat(batch.take()).isNull();
    }

    @Test
    @Timeout(20)
    void aBatchedSendCoalescesAFloodAndKeepsOrder() throws Exception {
        LinkedBlockingQueue<Message> received = new LinkedBlockingQueue<>();
        CommOptions options = CommOptions.defaults();
        try (Listener l = Comms.listen(Address.inproc("batch-" + UUID.randomUUID()), options, comm -> {
            try {
                while (true) {
                    received.add(comm.read());
                }
            } catch (RuntimeException e) {
                comm.abort();
            }
        })) {
            Comm comm = Comms.connect(l.contactAddress(), options);
            BatchedSend send = BatchedSend.of(comm, e -> { });
            for (int i = 0; i < 5000; i++) {
                send.send(Message.of("n", Map.of("i", (long) i)));
            }
            List<Long> seen = new ArrayList<>();
            int writes = 0;
            while (seen.size() < 5000) {
                Message m = received.poll(10, TimeUnit.SECONDS);
                assertThat(m).isNotNull();
                writes++;
                for (Message item : Batches.unpack(m)) {
                    seen.add(item.getLong("i"));
                }
            }
            assertThat(writes).as("writes for 5000 messages").isLessThan(100);
            for (int i = 0; i < seen.size(); i++) {
                assertThat(seen.get(i)).isEqualTo(i);
            }
            send.close(1000);
        }
    }
}
