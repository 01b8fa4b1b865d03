package io.dask4j.mpi.engine;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Lending pooled buffers to readers: explicit give-back, the GC fallback, and the counters that show reuse. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class BufferPoolTest {

    private final BufferPool pool = new BufferPool(256L << 20, 1L << 40);

    @Test
    void aLoanShowsTheBufferUntilGivenBackThenThrowsAndTheBufferIsReused() {
        MemorySegment buffer = pool.acquire(4 << 20);
        buffer.set(ValueLayout.JAVA_LONG, 8, 42);
        BufferPool.Loan loan = pool.lend(buffer, 3 << 20);
        assertThat(loan.view().byteSize()).isEqualTo(3 << 20);
        assertThat(loan.view().get(ValueLayout.JAVA_LONG, 8)).isEqualTo(42);
        assertThat(pool.lentBytes()).isEqualTo(4 << 20);
        MemorySegment slice = loan.view().asSlice(8, 8);
        loan.giveBack().run();
        assertThatThrownBy(() -> loan.view().get(ValueLayout.JAVA_LONG, 8)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> slice.get(ValueLayout.JAVA_LONG, 0)).isInstanceOf(IllegalStateException.class);
        assertThat(pool.lentBytes()).isZero();
        assertThat(pool.loansGivenBack()).isEqualTo(1);
        long allocations = pool.allocations();
        assertThat(pool.acquire(4 << 20).address()).isEqualTo(buffer.address());
        assertThat(pool.allocations()).isEqualTo(allocations);
        assertThat(pool.reuses()).isPositive();
    }

    @Test
    void aDroppedLoanComesBackThroughTheGc() throws InterruptedException {
        lendAndDrop(2 << 20);
        assertThat(pool.lentBytes()).isEqualTo(2 << 20);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (pool.loansCollected() == 0 && System.nanoTime() - deadline < 0) {
            System.gc();
            Thread.sleep(20); // paces the collections: the cleaner returns the loan on its own thread, a little later
        }
        assertThat(pool.loansCollected()).isEqualTo(1);
        assertThat(pool.loansGivenBack()).isZero();
        assertThat(pool.lentBytes()).isZero();
    }

    private void lendAndDrop(long bytes) {
        BufferPool.Loan loan = pool.lend(pool.acquire(bytes), bytes);
        loan.view().fill((byte) 1);
    }

    @Test
    void releasedHugePageBuffersLeaveNoAddressSpaceMapped() throws Exception {
        // Keeps nothing idle, so every release unmaps. A buffer used to leave the 2 MiB it was over-mapped by
        // (for alignment) mapped: 64 rounds of 4 MiB buffers then grew the address space by 128 MiB.
        BufferPool unpooled = new BufferPool(0, 1L << 40);
        for (int warm = 0; warm < 4; warm++) {
            unpooled.release(unpooled.acquire(4 << 20));
        }
        long before = mappedBytes();
        for (int i = 0; i < 64; i++) {
            MemorySegment buffer = unpooled.acquire(4 << 20);
            assertThat(buffer.address() % (2 << 20)).isZero();
            unpooled.release(buffer);
        }
        assertThat(mappedBytes() - before).as("address space growth").isLessThan(32L << 20);
    }

    /** The process's mapped address space (VmSize), in bytes. */
    private static long mappedBytes() throws java.io.IOException {
        for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/status"))) {
            if (line.startsWith("VmSize:")) {
                return Long.parseLong(line.replaceAll("\\D", "")) << 10;
            }
        }
        throw new IllegalStateException("no VmSize in /proc/self/status");
    }

    @Test
    void anAbandonedLoanEndsButItsBufferNeverReturns() {
        MemorySegment buffer = pool.acquire(4 << 20);
        BufferPool.Loan loan = pool.lend(buffer, 4 << 20);
        loan.abandon().run();
        assertThatThrownBy(() -> loan.view().get(ValueLayout.JAVA_LONG, 0)).isInstanceOf(IllegalStateException.class);
        assertThat(pool.lentBytes()).isZero();
        assertThat(pool.loansGivenBack()).isZero();
        assertThat(pool.acquire(4 << 20).address()).isNotEqualTo(buffer.address());
    }
}
