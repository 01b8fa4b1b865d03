package io.dask4j.mpi.comm;

import io.dask4j.comm.CommClosedException;
import io.dask4j.comm.Frame;
import io.dask4j.comm.Message;
import io.dask4j.mpi.fake.FakeMpiWorld;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link MpiComm} over the in-process fake MPI: what a writer waits for, and how a comm ends. */
@Timeout(30)
class MpiCommFakeTest {

    private static final MpiTransportOptions LIMITS = MpiTransportOptions.defaults().withReadWindow(2048);

    @Test
    void smallAndChunkedMessagesArriveWhole() throws Exception {
        // 1 KiB chunks stand for MPI's 1 GiB: a 10,000-byte frame goes as ten chunk messages.
        try (FakeRanks ranks = new FakeRanks(2, LIMITS.withChunkBytes(1024))) {
            MpiComm[] pair = ranks.connect(1);
            byte[] big = new byte[10_000];
            for (int i = 0; i < big.length; i++) {
                big[i] = (byte) (i * 31);
            }
            long sendsBefore = dataSends(ranks);
            pair[0].write(Message.of("small", Map.of("n", 1)));
            pair[0].write(Message.of("big", Map.of(), List.of(Frame.of(big))));
            assertThat(pair[1].read().getInt("n")).isEqualTo(1);
            Message got = pair[1].read();
            assertThat(got.frame(0).segment().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)).isEqualTo(big);
            // the small one inline (1), the big one: envelope + ten chunks
            assertThat(dataSends(ranks) - sendsBefore).isEqualTo(1 + 1 + 10);
        }
    }

    private static long dataSends(FakeRanks ranks) {
        return ranks.world.sends(MpiTransport.TAG_ENVELOPE) + ranks.world.sends(MpiTransport.TAG_FRAME);
    }

    @Test
    void aWriterWaitsForCreditOnceItsWindowIsUnread() throws Exception {
        try (FakeRanks ranks = new FakeRanks(2, LIMITS)) {
            MpiComm[] pair = ranks.connect(1);
            AtomicInteger written = new AtomicInteger();
            int total = 2048 + 1024 + 10;
            Background writer = Background.run(() -> {
                for (int i = 0; i < total; i++) {
                    pair[0].write(Message.of("m", Map.of("i", i)));
                    written.incrementAndGet();
                }
            });
            Background.awaitTrue(() -> written.get() == 2048 && writer.parked());
            for (int read = 0; read < total; read++) {
                // never more than the window ahead of what was read (and credited back)
                assertThat(written.get()).isLessThanOrEqualTo(read + 2048);
                assertThat(pair[1].read().getInt("i")).isEqualTo(read);
            }
            writer.done.get();
        }
    }

    @Test
    void aSingleMessageLargerThanTheInboxLimitStillPasses() throws Exception {
        try (FakeRanks ranks = new FakeRanks(2, LIMITS.withInboxBytes(64 << 10))) {
            MpiComm[] pair = ranks.connect(1);
            AtomicInteger written = new AtomicInteger();
            Background writer = Background.run(() -> {
                pair[0].write(Message.of("huge", Map.of(), List.of(Frame.of(new byte[1 << 20]))));
                written.incrementAndGet();
                pair[0].write(Message.of("next"));
                written.incrementAndGet();
            });
            // Alone it passes; the next message waits until the huge one is read and credited back.
            Background.awaitTrue(() -> written.get() == 1 && writer.parked());
            assertThat(pair[1].read().frame(0).size()).isEqualTo(1 << 20);
            assertThat(pair[1].read().op()).isEqualTo("next");
            writer.done.get(10, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    @Test
    void aCloseByThePeerEndsAWriterWaitingForCredit() throws Exception {
        try (FakeRanks ranks = new FakeRanks(2, LIMITS)) {
            MpiComm[] pair = ranks.connect(1);
            AtomicInteger written = new AtomicInteger();
            Background writer = Background.run(() -> {
                while (true) {
                    pair[0].write(Message.of("m"));
                    written.incrementAndGet();
                }
            });
            Background.awaitTrue(() -> written.get() == 2048 && writer.parked());
            pair[1].close();
            assertThat(writer.done).failsWithin(java.time.Duration.ofSeconds(10))
                    .withThrowableThat().havingRootCause().isInstanceOf(CommClosedException.class);
        }
    }

    @Test
    void anEngineFailureClosesTheCommsWithItsCause() throws Exception {
        try (FakeRanks ranks = new FakeRanks(2, LIMITS)) {
            MpiComm[] pair = ranks.connect(1);
            ranks.world.failNext(0, "MPI_Improbe", FakeMpiWorld.ERR_OTHER);
            pair[0].write(Message.of("wakes the engine"));
            assertThatThrownBy(pair[1]::read).isInstanceOf(CommClosedException.class)
                    .hasMessageContaining("fake MPI error 15");
            assertThat(ranks.engines[0].failure()).hasMessageContaining("MPI_Improbe");
            assertThatThrownBy(() -> pair[1].write(Message.of("after"))).isInstanceOf(CommClosedException.class);
        }
    }
}
