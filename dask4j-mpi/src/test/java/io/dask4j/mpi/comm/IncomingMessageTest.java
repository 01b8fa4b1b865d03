package io.dask4j.mpi.comm;

import io.dask4j.comm.wire.MessageHeader;
import io.dask4j.comm.wire.WireCodec;
import io.dask4j.mpi.engine.BufferPool;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** A message whose receive failed (the engine broke) never reaches the reader, and its pooled memory is not reused. */
class IncomingMessageTest {

    private static final long BYTES = 4L << 20;

    private final BufferPool pool = new BufferPool(256L << 20, 1L << 40);

    @Test
    void aFailedReceiveLeavesTheMessageIncompleteAndItsPooledFrameOutOfThePool() {
        MemorySegment buffer = pool.acquire(BYTES);
        BufferPool.Loan loan = pool.lend(buffer, BYTES);
        MessageHeader header = new MessageHeader("data", Map.of(), new long[]{BYTES}, new byte[]{WireCodec.KIND_NATIVE});
        IncomingMessage message = new IncomingMessage(header, new MemorySegment[]{loan.view()}, new BufferPool.Loan[]{loan});
        message.receivePosted();
        assertThat(message.matchedAll()).isFalse();

        message.receiveFailed();

        assertThat(message.isComplete()).isFalse();
        assertThat(message.receiveDone()).isFalse(); // even a late success cannot complete it
        assertThat(message.isComplete()).isFalse();
        assertThat(pool.lentBytes()).isZero();
        assertThat(pool.loansGivenBack()).isZero();
        assertThat(pool.acquire(BYTES).address()).isNotEqualTo(buffer.address()); // MPI may still write the old one
    }

    @Test
    void aSuccessfulReceiveCompletesTheMessage() {
        MessageHeader header = new MessageHeader("data", Map.of(), new long[]{8}, new byte[]{WireCodec.KIND_NATIVE});
        IncomingMessage message = new IncomingMessage(header, new MemorySegment[]{MemorySegment.ofArray(new byte[8])}, null);
        message.receivePosted();
        message.matchedAll();
        assertThat(message.receiveDone()).isTrue();
        assertThat(message.isComplete()).isTrue();
    }
}
