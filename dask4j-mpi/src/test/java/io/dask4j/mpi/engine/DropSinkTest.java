package io.dask4j.mpi.engine;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;

import static org.assertj.core.api.Assertions.assertThat;

/** Dropped large messages are received into one reusable buffer, unmapped once idle. */
class DropSinkTest {

    private final DropSink sink = new DropSink();

    @Test
    void theSameBufferServesSuccessiveDroppedChunksAndGrowsToTheLargest() {
        MemorySegment first = sink.take(1 << 20);
        sink.giveBack(first, 0);
        assertThat(sink.take(512 << 10).address()).isEqualTo(first.address());
        sink.giveBack(first, 0);

        MemorySegment larger = sink.take(3 << 20);
        assertThat(larger.address()).isNotEqualTo(first.address());
        assertThat(sink.idleBuffer()).isEqualTo(first); // the smaller one waits while the larger is in use
        sink.giveBack(larger, 0);
        assertThat(sink.idleBuffer().address()).isEqualTo(larger.address());
        assertThat(sink.take(2 << 20).address()).isEqualTo(larger.address());
    }

    @Test
    void concurrentDroppedReceivesGetBuffersOfTheirOwn() {
        MemorySegment a = sink.take(1 << 20);
        MemorySegment b = sink.take(1 << 20);
        assertThat(a.address()).isNotEqualTo(b.address());
        sink.giveBack(a, 0);
        sink.giveBack(b, 0); // not larger: unmapped
        assertThat(sink.idleBuffer().address()).isEqualTo(a.address());
    }

    @Test
    void anIdleBufferIsUnmappedAfterASecond() {
        sink.giveBack(sink.take(1 << 20), 0);
        sink.trim(DropSink.IDLE_NANOS - 1);
        assertThat(sink.holdsIdle()).isTrue();
        sink.trim(DropSink.IDLE_NANOS);
        assertThat(sink.holdsIdle()).isFalse();
    }
}
