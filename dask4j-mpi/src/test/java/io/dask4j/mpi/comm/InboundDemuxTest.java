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
    void aMessageBeyondTheGrantedCreditEndsTheCommWithoutAllocatingIt() throws Exception {
        try (FakeRanks ranks = new FakeRanks(2, LIMITS); Arena arena = Arena.ofConfined()) {
            MpiComm[] pair = ranks.connectUnlifted(1);
            // Before its handshake a comm grants 64 KiB: rank 1 sends 100 KiB by hand, ignoring the credit.
            PointToPoint rank1 = ranks.world.rank(1);
            MemorySegment envelope = dataEnvelope(arena, pair[0], Message.of("x", Map.of(),
                    List.of(Frame.of(new byte[100 << 10]))));
            MemorySegment frame = arena.allocate(100 << 10);
            MemorySegment request = arena.allocate(8);
            synchronized (ranks.world) {
                send(rank1, envelope, MpiTransport.TAG_ENVELOPE, request);
                send(rank1, frame, MpiTransport.TAG_FRAME, request);
            }
            assertThatThrownBy(pair[1]::read).isInstanceOf(CommClosedException.class)
                    .hasMessageContaining("beyond the credit");
            assertThat(ranks.engines[0].failure()).isNull(); // the rank serves on
            assertThat(ranks.connect(1)[0].isClosed()).isFalse();
        }
    }

    @Test
    void anEnvelopeWhereAFrameWasDueFailsTheEngineNamingTheBrokenOrder() throws Exception {
        try (FakeRanks ranks = new FakeRanks(2, LIMITS); Arena arena = Arena.ofConfined()) {
            MpiComm[] pair = ranks.connect(1);
            // Rank 1 sends by hand a DATA envelope announcing one frame, then a second envelope in its place:
            // what Open MPI's ob1 did once its 16-bit sequence numbers wrapped.
            PointToPoint rank1 = ranks.world.rank(1);
            MemorySegment envelope = dataEnvelope(arena, pair[0], Message.of("x", Map.of(),
                    List.of(Frame.of(new byte[10_000]))));
            MemorySegment request = arena.allocate(8);
            synchronized (ranks.world) {
                send(rank1, envelope, MpiTransport.TAG_ENVELOPE, request);
                send(rank1, envelope, MpiTransport.TAG_ENVELOPE, request);
            }
            assertThatThrownBy(pair[1]::read).isInstanceOf(CommClosedException.class)
                    .hasMessageContaining("broke its message order");
            assertThat(ranks.engines[0].failure()).hasMessageContaining("frame 1 of 1");
        }
    }

    private static MemorySegment dataEnvelope(Arena arena, MpiComm from, Message announced) {
        ByteBuffer header = new WireCodec().encodeHeader(announced);
        MemorySegment envelope = arena.allocate(Envelope.BYTES + header.limit());
        MemorySegment.copy(MemorySegment.ofBuffer(header), 0, envelope, Envelope.BYTES, header.limit());
        Envelope.write(envelope, Envelope.DATA, (byte) 0, from.peerId(), from.id());
        return envelope;
    }

    private static void send(PointToPoint rank, MemorySegment data, int tag, MemorySegment request) {
        rank.check(rank.isend(data, (int) data.byteSize(), FakeMpiWorld.BYTE, 0, tag, FakeMpiWorld.COMM, request),
                "MPI_Isend");
    }
}
