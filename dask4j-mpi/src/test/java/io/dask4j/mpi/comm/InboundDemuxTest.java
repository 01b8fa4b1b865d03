package io.dask4j.mpi.comm;

import io.dask4j.comm.CommClosedException;
import io.dask4j.comm.Frame;
import io.dask4j.comm.Message;
import io.dask4j.comm.wire.WireCodec;
import io.dask4j.mpi.binding.PointToPoint;
import io.dask4j.mpi.fake.FakeMpiWorld;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link InboundDemux} over the in-process fake MPI: holds, resumes, and what it refuses. */
@Timeout(30)
class InboundDemuxTest {

    private static final MpiTransportOptions LIMITS = MpiTransportOptions.defaults();

    @Test
    void aReaderFarBehindHoldsBackItsSourceUntilItReads() throws Exception {
        try (FakeRanks ranks = new FakeRanks(2, LIMITS.withInboxBytes(64 << 10))) {
            MpiComm[] pair = ranks.connect(1);
            for (int i = 0; i < 3; i++) {
                pair[0].write(Message.of("m", Map.of("i", i), List.of(Frame.of(new byte[40 << 10]))));
            }
            // Two unread messages (80 KiB) pass the limit: the third waits in MPI, its source paused.
            Background.awaitTrue(() -> ranks.transports[0].anyPaused());
            assertThat(ranks.world.unmatched(0)).isPositive();
            for (int i = 0; i < 3; i++) {
                assertThat(pair[1].read().getInt("i")).isEqualTo(i);
            }
            Background.awaitTrue(() -> !ranks.transports[0].anyPaused());
        }
    }

    @Test
    void aLargeMessageBeforeTheHandshakeEndsWaitsForTheLimitToLift() throws Exception {
        try (FakeRanks ranks = new FakeRanks(2, LIMITS)) {
            MpiComm[] pair = ranks.connectUnlifted(1);
            pair[0].write(Message.of("big", Map.of(), List.of(Frame.of(new byte[100 << 10]))));
            Background.awaitTrue(() -> ranks.transports[0].anyPaused());
            assertThat(pair[1].inboxEmpty()).isTrue(); // not allocated before the peer has proven itself
            pair[1].liftHandshakeLimit(FakeRanks.commOptions().maxMessageBytes());
            assertThat(pair[1].read().frame(0).size()).isEqualTo(100 << 10);
        }
    }

    @Test
    void anEnvelopeWhereAFrameWasDueFailsTheEngineNamingTheBrokenOrder() throws Exception {
        try (FakeRanks ranks = new FakeRanks(2, LIMITS); Arena arena = Arena.ofConfined()) {
            MpiComm[] pair = ranks.connect(1);
            // Rank 1 sends by hand a DATA envelope announcing one frame, then a second envelope in its place:
            // what Open MPI's ob1 did once its 16-bit sequence numbers wrapped.
            PointToPoint rank1 = ranks.world.rank(1);
            Message announced = Message.of("x", Map.of(), List.of(Frame.of(new byte[10_000])));
            ByteBuffer header = new WireCodec().encodeHeader(announced);
            MemorySegment envelope = arena.allocate(Envelope.BYTES + header.limit());
            MemorySegment.copy(MemorySegment.ofBuffer(header), 0, envelope, Envelope.BYTES, header.limit());
            Envelope.write(envelope, Envelope.DATA, (byte) 0, pair[0].peerId(), pair[0].id());
            MemorySegment request = arena.allocate(8);
            synchronized (ranks.world) {
                send(rank1, envelope, request);
                send(rank1, envelope, request);
            }
            assertThatThrownBy(pair[1]::read).isInstanceOf(CommClosedException.class)
                    .hasMessageContaining("broke its message order");
            assertThat(ranks.engines[0].failure()).hasMessageContaining("frame 1 of 1");
        }
    }

    @Test
    void creditsFromAPausedSourceStillReachItsWriters() throws Exception {
        // The fake also reorders what MPI may reorder (sources; a tag probed alone past other tags).
        try (FakeRanks ranks = new FakeRanks(2, LIMITS.withInboxBytes(64 << 10).withReadWindow(2048),
                new FakeMpiWorld.Options(64 << 10, 42L))) {
            MpiComm[] pair = ranks.connect(1);
            for (int i = 0; i < 3; i++) {
                pair[0].write(Message.of("m", Map.of("i", i), List.of(Frame.of(new byte[40 << 10]))));
            }
            Background.awaitTrue(() -> ranks.transports[0].anyPaused()); // rank 0 holds rank 1 back
            // Rank 0 writes past its read window to rank 1: it goes on only with rank 1's CREDITs, which rank 0
            // must match although it pauses rank 1's other messages.
            int total = 3 * 2048;
            Background writer = Background.run(() -> {
                for (int i = 0; i < total; i++) {
                    pair[1].write(Message.of("small", Map.of("i", i)));
                }
            });
            for (int i = 0; i < total; i++) {
                assertThat(pair[0].read().getInt("i")).isEqualTo(i);
            }
            writer.done.get(10, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(ranks.transports[0].anyPaused()).isTrue(); // still paused all along
            for (int i = 0; i < 3; i++) {
                assertThat(pair[1].read().getInt("i")).isEqualTo(i);
            }
        }
    }

    private static void send(PointToPoint rank, MemorySegment envelope, MemorySegment request) {
        rank.check(rank.isend(envelope, (int) envelope.byteSize(), FakeMpiWorld.BYTE, 0, MpiTransport.TAG_ENVELOPE,
                FakeMpiWorld.COMM, request), "MPI_Isend");
    }
}
