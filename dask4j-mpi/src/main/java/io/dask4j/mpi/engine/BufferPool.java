package io.dask4j.mpi.engine;

import io.dask4j.mpi.binding.Posix;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Cleaner;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Reusable off-heap buffers for MPI transfers, in power-of-two size classes from 256 bytes. Fresh memory is
 * slow to touch on small VMs (12-20 us per 4 KiB page), so buffers
 * are reused; those of 2 MiB and more are mapped with {@code mmap} (untouched, not zero-filled by Java) and
 * advised to use transparent huge pages, which cuts the faults 512-fold when they are first touched.
 *
 * <p>All methods are thread-safe. {@link #lend} hands a buffer to code outside the transport (a received
 * frame given to the reader) as a {@link Loan}: a view in an arena of its own plus an explicit give-back
 * that closes the arena (so the view fails instead of showing later data) and returns the buffer; a loan
 * never given back returns its buffer once the view is unreachable (a {@link Cleaner} on the view's scope).
 * That fallback alone was measured to be far too slow for a busy comm (a view comes back only after a GC,
 * so the comm kept receiving into fresh pages), hence the explicit give-back. Because off-heap memory puts
 * no pressure on the Java heap, when more than {@code gcTriggerBytes} are out on loan, {@link #acquire} of a
 * large buffer asks for a GC (as the JDK does for direct buffers) so that dropped loans come back; callers
 * that would rather not wait check {@link #lentBytes()} first. At most {@code retainedBytes} of idle buffers
 * are kept.
 */
public final class BufferPool {

    private static final int MIN_SHIFT = 8;
    private static final int MAX_SHIFT = 40;
    private static final long HUGE_PAGE = 2L << 20;
    private static final long SLAB_MIN = 64L << 10;

    private final ConcurrentLinkedDeque<MemorySegment>[] free;
    private final AtomicLong idleBytes = new AtomicLong();
    private static final Cleaner CLEANER = Cleaner.create();

    private final AtomicLong lentBytes = new AtomicLong();
    private final AtomicLong allocations = new AtomicLong();
    private final AtomicLong reuses = new AtomicLong();
    private final AtomicLong loansGivenBack = new AtomicLong();
    private final AtomicLong loansCollected = new AtomicLong();
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
        if (buffer == null && shift >= 21 && lentBytes.get() > gcTriggerBytes) {
            buffer = reclaim(shift);
        }
        if (buffer != null) {
            idleBytes.addAndGet(-buffer.byteSize());
            reuses.incrementAndGet();
            return buffer;
        }
        allocations.incrementAndGet();
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
     * A view of an acquired buffer, lent out: the first {@code length} bytes, in a shared arena of its own.
     * Whoever holds the loan either runs {@link Loan#giveBack()} once nobody uses the view (the arena closes,
     * then the buffer returns to the pool) or drops the view, which returns the buffer after a GC. Do not
     * release the buffer otherwise.
     */
    public Loan lend(MemorySegment buffer, long length) {
        long size = buffer.byteSize();
        lentBytes.addAndGet(size);
        Arena arena = Arena.ofShared();
        MemorySegment view = buffer.asSlice(0, length).reinterpret(arena, null);
        // The action must not reach the view's scope, or the scope would never become unreachable.
        GiveBack action = new GiveBack(this, buffer);
        Cleaner.Cleanable back = CLEANER.register(view.scope(), action);
        return new Loan(view, () -> {
            arena.close(); // throws IllegalStateException if the view is in use: then nothing is given back
            action.explicit = true;
            back.clean(); // runs the action unless the GC already did (it cannot have: the view is reachable)
        }, () -> {
            action.abandoned = true;
            back.clean(); // the loan counts as over, but the buffer stays out of the pool for good
            try {
                arena.close();
            } catch (IllegalStateException inUse) {
                // Someone is inside a native call with the view: it stays open; the buffer is out of the pool anyway.
            }
        });
    }

    /** Bytes of buffers out on loan (given back neither explicitly nor by the GC yet). */
    public long lentBytes() {
        return lentBytes.get();
    }

    /** How many buffers were mapped or allocated fresh (not taken from the pool). */
    public long allocations() {
        return allocations.get();
    }

    /** How many {@link #acquire} calls were served from the pool. */
    public long reuses() {
        return reuses.get();
    }

    /** How many loans were given back explicitly. */
    public long loansGivenBack() {
        return loansGivenBack.get();
    }

    /** How many loans came back because their view became unreachable. */
    public long loansCollected() {
        return loansCollected.get();
    }

    /**
     * A buffer lent out by {@link #lend}: the {@code view} to use and {@code giveBack}, which makes the view
     * inaccessible and returns the buffer. Run {@code giveBack} at most once (callers such as {@code
     * io.dask4j.comm.Frame#release} guard that); it throws {@link IllegalStateException}, giving nothing back,
     * while another thread is inside a native call that uses the view. {@code abandon} is for a buffer MPI may
     * still write into (a receive cut short by a failed engine): the view is closed and the loan ends, but the
     * buffer never returns to the pool, whose next user would otherwise see MPI's late writes. Run one of the
     * two, once, on the thread driving the engine (abandon) or the reader's (giveBack).
     */
    public record Loan(MemorySegment view, Runnable giveBack, Runnable abandon) {
    }

    /** Returns a lent buffer to its pool, once: explicitly (via its Cleanable) or when the view is collected. */
    private static final class GiveBack implements Runnable {
        private final BufferPool pool;
        private final MemorySegment buffer;
        volatile boolean explicit;
        volatile boolean abandoned;

        GiveBack(BufferPool pool, MemorySegment buffer) {
            this.pool = pool;
            this.buffer = buffer;
        }

        @Override
        public void run() {
            pool.lentBytes.addAndGet(-buffer.byteSize());
            if (abandoned) {
                return; // left to MPI: mapped until the process ends, which a failed engine is near
            }
            (explicit ? pool.loansGivenBack : pool.loansCollected).incrementAndGet();
            pool.release(buffer);
        }
    }

    /** Asks the GC to collect dropped loans, then waits briefly for a buffer of the class to come back. */
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

    /**
     * Fresh 2 MiB-aligned anonymous memory advised to use transparent huge pages. Maps 2 MiB more than asked
     * to find an aligned start, then unmaps the unaligned head and tail at once, so that exactly the returned
     * segment stays mapped and {@link #release} unmapping it leaves nothing behind (otherwise each buffer
     * would leave up to 2 MiB of orphan mappings, which count toward {@code vm.max_map_count} in a long job).
     */
    private static MemorySegment hugePages(long size) {
        MemorySegment raw = Posix.mmap(size + HUGE_PAGE);
        long aligned = (raw.address() + HUGE_PAGE - 1) & -HUGE_PAGE;
        long head = aligned - raw.address();
        if (head > 0) {
            Posix.munmap(raw.asSlice(0, head));
        }
        long tail = HUGE_PAGE - head;
        if (tail > 0) {
            Posix.munmap(raw.asSlice(head + size, tail));
        }
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
