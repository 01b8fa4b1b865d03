package io.dask4j.mpi.comm;

import io.dask4j.comm.Frame;
import io.dask4j.comm.Message;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class MessageEncoderTest {

    private static final long CHUNK = MpiTransportOptions.MAX_CHUNK_BYTES;

    @Test
    void aMessageTakesOneSendForItsEnvelopeAndOneForEachFrameChunk() {
        assertThat(MessageEncoder.mpiSends(Message.of("ping"), CHUNK)).isEqualTo(1);
        assertThat(MessageEncoder.mpiSends(Message.of("two", Map.of(),
                List.of(Frame.of(new byte[10]), Frame.EMPTY)), CHUNK)).isEqualTo(3);
    }

    @Test
    void aFrameOverOneChunkCountsEveryChunkItIsSentIn() {
        // Never read: only the sizes count. Two full chunks and one byte: three MPI sends of that frame.
        MemorySegment huge = MemorySegment.ofAddress(4096).reinterpret(2 * CHUNK + 1);
        MemorySegment exact = MemorySegment.ofAddress(4096).reinterpret(CHUNK);
        Message message = Message.of("big", Map.of(), List.of(new Frame(huge), new Frame(exact)));
        assertThat(MessageEncoder.mpiSends(message, CHUNK)).isEqualTo(1 + 3 + 1);
    }
}
