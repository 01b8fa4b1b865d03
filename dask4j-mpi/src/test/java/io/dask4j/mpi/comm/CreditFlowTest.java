package io.dask4j.mpi.comm;

import io.dask4j.comm.Frame;
import io.dask4j.comm.Message;
import io.dask4j.mpi.fake.FakeMpiWorld;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** Per-comm flow control ({@link CreditWindow}) end to end over the in-process fake MPI. */
@Timeout(30)
class CreditFlowTest {

    private static final MpiTransportOptions LIMITS = MpiTransportOptions.defaults().withInboxBytes(256 << 10);

    @Test
    void aSlowReaderStopsOnlyItsOwnCommsWriterNotTheRanksOtherCommsNorNewOnes() throws Exception {
        try (FakeRanks ranks = new FakeRanks(2, LIMITS)) {
            MpiComm[] slow = ranks.connect(1);
            MpiComm[] other = ranks.connect(1);
            AtomicInteger written = new AtomicInteger();
            Background writer = Background.run(() -> {
                for (int i = 0; i < 20; i++) {
                    slow[0].write(Message.of("big", Map.of("i", i), List.of(Frame.of(new byte[100 << 10]))));
                    written.incrementAndGet();
                }
            });
            // 256 KiB of window: two 100 KiB messages go, the third waits for the reader that does not read.
            Background.awaitTrue(() -> written.get() == 2 && writer.parked());
            // The same rank's other comm and a new connection (its CONNECT and ACCEPT) are not held back.
            for (int i = 0; i < 50; i++) {
                other[0].write(Message.of("m", Map.of("i", i), List.of(Frame.of(new byte[10 << 10]))));
                assertThat(other[1].read().getInt("i")).isEqualTo(i);
            }
            MpiComm[] fresh = ranks.connect(1);
            fresh[0].write(Message.of("hello"));
            assertThat(fresh[1].read().op()).isEqualTo("hello");
            assertThat(written.get()).isEqualTo(2);
            for (int i = 0; i < 20; i++) {
                assertThat(slow[1].read().getInt("i")).isEqualTo(i);
            }
            writer.done.get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aLargeMessageWaitsAtTheWriterUntilTheReadersHandshakeOpensItsWindow() throws Exception {
        try (FakeRanks ranks = new FakeRanks(2, LIMITS)) {
            MpiComm[] pair = ranks.connectUnlifted(1);
            pair[0].liftHandshakeLimit(FakeRanks.commOptions().maxMessageBytes());
            Background writer = Background.run(() ->
                    pair[0].write(Message.of("big", Map.of(), List.of(Frame.of(new byte[100 << 10])))));
            Background.awaitTrue(writer::parked); // 64 KiB granted before the reader's handshake
            assertThat(pair[1].inboxEmpty()).isTrue();
            pair[1].liftHandshakeLimit(FakeRanks.commOptions().maxMessageBytes());
            assertThat(pair[1].read().frame(0).size()).isEqualTo(100 << 10);
            writer.done.get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aWriterThatWaitsAsksForCreditTheReaderWouldNotYetSend() throws Exception {
        try (FakeRanks ranks = new FakeRanks(2, LIMITS)) {
            MpiComm[] pair = ranks.connect(1);
            // 10 KiB read is under the reader's credit threshold (a quarter of 256 KiB); the 250 KiB after it does
            // not fit beside it, so the writer waits, and only its request makes the reader credit the 10 KiB.
            Background writer = Background.run(() -> {
                pair[0].write(Message.of("small", Map.of(), List.of(Frame.of(new byte[10 << 10]))));
                pair[0].write(Message.of("large", Map.of(), List.of(Frame.of(new byte[250 << 10]))));
            });
            assertThat(pair[1].read().op()).isEqualTo("small");
            assertThat(pair[1].read().op()).isEqualTo("large");
            writer.done.get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void bothDirectionsFloodPastTheirWindowsUnderReordering() throws Exception {
        // The fake also reorders what MPI may reorder; credits ride a tag of their own and may overtake data.
        try (FakeRanks ranks = new FakeRanks(2, LIMITS.withReadWindow(2048), new FakeMpiWorld.Options(1 << 10, 7L))) {
            MpiComm[] pair = ranks.connect(1);
            int total = 3 * 2048;
            Background there = Background.run(() -> {
                for (int i = 0; i < total; i++) {
                    pair[0].write(Message.of("m", Map.of("i", i), List.of(Frame.of(new byte[i % 3 * 1000]))));
                }
            });
            Background back = Background.run(() -> {
                for (int i = 0; i < total; i++) {
                    pair[1].write(Message.of("m", Map.of("i", i)));
                }
            });
            for (int i = 0; i < total; i++) {
                assertThat(pair[1].read().getInt("i")).isEqualTo(i);
                assertThat(pair[0].read().getInt("i")).isEqualTo(i);
            }
            there.done.get(10, TimeUnit.SECONDS);
            back.done.get(10, TimeUnit.SECONDS);
            assertThat(pair[0].uncreditedBytes()).isLessThanOrEqualTo(256 << 10);
        }
    }
}
