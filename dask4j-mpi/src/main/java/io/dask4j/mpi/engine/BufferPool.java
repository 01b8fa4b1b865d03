package io.dask4j.mpi.engine;

import io.dask4j.mpi.binding.Posix;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Reusable off-heap buffers for MPI transfers, in power-of-two size classes from 256 bytes. Fresh memory is
 * slow to touch on small VMs (12-20 us per 4 KiB page, DESIGN.md §8), so buffers are reused; those of 2 MiB
 * and more are mapped with {@code mmap} (untouched, not zero-filled by Java) and advised to use
 * transparent huge pages, which cuts the faults 512-fold when they are first touched.
 *
 * <p>{@link #acquire} and {@link #release} are thread-safe. {@link #recyclingView} hands a buffer to code
 * that cannot release it explicitly (a received frame given to the user): the buffer returns to the pool
 * when the view becomes unreachable. Because off-heap memory puts no pressure on the Java heap, when more
 * than {@code gcTriggerBytes} are out in such views, {@link #acquire} asks for a GC (as the JDK does for
 * direct buffers) so that the dropped views come back. At most {@code retainedBytes} of idle buffers are kept.
 */
public final class BufferPool {

    private static final int MIN_SHIFT = 8;
    private static final int MAX_SHIFT = 40;
    private static final long HUGE_PAGE = 2L << 20;
    private static final long SLAB_MIN = 64L << 10;

    private final ConcurrentLinkedDeque<MemorySegment>[] free;
    private final AtomicLong idleBytes = new AtomicLong();
    private final AtomicLong viewBytes = new AtomicLong();
    private final long retainedBytes;
    private final long gcTriggerBytes;

    @SuppressWarnings("unchecked")
    public BufferPool(long retainedBytes, long gcTriggerBytes) {
        this.retainedBytes = retainedBytes;
        this.gcTriggerBytes = gcTriggerBytes;
        this.free = new ConcurrentLinkedDeque[MAX_SHIFT + 1];
        for (int i = 0; i < free.length; i++) {
            free[i] = new ConcurrentLinkedDeque<>();
        }
    }

    /** A native buffer of at least {@code bytes} bytes (its full capacity is visible); release it when done. */
    public MemorySegment acquire(long bytes) {
        int shift = classOf(bytes);
        MemorySegment buffer = free[shift].pollFirst();
        if (buffer == null && shift >= 21 && viewBytes.get() > gcTriggerBytes) {
            buffer = reclaim(shift);
        }
        if (buffer != null) {
            idleBytes.addAndGet(-buffer.byteSize());
            return buffer;
        }
        return allocate(shift);
    }

    /** Returns a buffer from {@link #acquire}; it must no longer be used by anyone (including MPI). */
    public void release(MemorySegment buffer) {
        long size = buffer.byteSize();
        if (idleBytes.get() + size > retainedBytes) {
            if (size >= HUGE_PAGE) {
                Posix.munmap(buffer);
                return;
            }
            if (size < SLAB_MIN) {
                return; // from an automatic arena: the GC frees it
            }
            // slab pieces stay pooled (their huge page cannot be split back)
        }
        idleBytes.addAndGet(size);
        free[Long.numberOfTrailingZeros(size)].addFirst(buffer);
    }

    /**
     * A view of the first {@code length} bytes of an acquired buffer that gives the buffer back to the pool
     * once the view (and every slice of it) is unreachable. Do not release the buffer otherwise.
     */
    public MemorySegment recyclingView(MemorySegment buffer, long length) {
        long size = buffer.byteSize();
        viewBytes.addAndGet(size);
        return buffer.asSlice(0, length).reinterpret(length, Arena.ofAuto(), unused -> {
            viewBytes.addAndGet(-size);
            release(buffer);
        });
    }

    /** Asks the GC to collect dropped views, then waits briefly for a buffer of the class to come back. */
    private MemorySegment reclaim(int shift) {
        System.gc();
        long deadline = System.nanoTime() + 20_000_000L;
        MemorySegment buffer;
        while ((buffer = free[shift].pollFirst()) == null && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(200_000);
        }
        return buffer;
    }

    private MemorySegment allocate(int shift) {
        long size = 1L << shift;
        if (size >= HUGE_PAGE) {
            return hugePages(size);
        }
        if (size >= SLAB_MIN) {
            // Carve a huge page into buffers of this class: one fault instead of hundreds when first touched.
            MemorySegment slab = hugePages(HUGE_PAGE);
            for (long offset = size; offset < HUGE_PAGE; offset += size) {
                idleBytes.addAndGet(size);
                free[shift].addLast(slab.asSlice(offset, size));
            }
            return slab.asSlice(0, size);
        }
        // Small buffers live as long as the pool keeps them (or until the GC frees them once dropped).
        return Arena.ofAuto().allocate(size, 64);
    }

    /** Fresh 2 MiB-aligned anonymous memory advised to use transparent huge pages. */
    private static MemorySegment hugePages(long size) {
        MemorySegment raw = Posix.mmap(size + HUGE_PAGE);
        long aligned = (raw.address() + HUGE_PAGE - 1) & -HUGE_PAGE;
        MemorySegment segment = MemorySegment.ofAddress(aligned).reinterpret(size);
        Posix.adviseHugePages(segment);
        return segment;
    }

    private static int classOf(long bytes) {
        int shift = Math.max(MIN_SHIFT, 64 - Long.numberOfLeadingZeros(Math.max(1, bytes - 1)));
        if (shift > MAX_SHIFT) {
            throw new IllegalArgumentException("buffer of " + bytes + " bytes is too large");
        }
        return shift;
    }
}
