package io.dask4j.mpi.engine;

import io.dask4j.mpi.binding.Mpi;
import io.dask4j.mpi.binding.MpiAbi;
import io.dask4j.mpi.binding.MpiException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * The one place that drives MPI point-to-point traffic of a process on one communicator.
 *
 * <p>A pass ({@link #doWork()}) posts queued sends ({@link Outbound}, usually {@code MPI_Isend}), tests the
 * outstanding requests with {@code MPI_Testsome} and runs their {@link Completion}s, then matches incoming
 * messages with {@code MPI_Improbe(ANY_SOURCE, ANY_TAG)} and receives them ({@code MPI_Mrecv} into scratch
 * memory when small, {@code MPI_Imrecv} into the router's buffer when large), handing each to the {@link
 * InboundRouter}. No user code runs in a pass.
 *
 * <p><b>Who drives.</b> Whoever holds the engine's lock: the dedicated platform thread {@code
 * dask4j-mpi-progress}, which idles with a backoff ({@link EngineOptions}) when a pass finds nothing, or a
 * platform thread that waits for something ({@link #await}: caller-runs, like Aeron's AgentInvoker). A
 * waiter driving progress itself avoids the park/unpark hand-off that costs ~7 us on a small machine
 * (DESIGN.md §5); while callers drive, the engine thread stays parked so that no more threads spin than
 * there are cores. Virtual threads never drive (a native call pins their carrier): they park and are woken
 * by the completion that concerns them.
 *
 * <p><b>Threads.</b> {@link #submit}, {@link #await}, {@link #wakeUp} and {@link #close} may be called from
 * any thread. {@link #isend} may only be called while driving
 * (from an {@link Outbound} or a {@link Completion}). Buffers of posted requests are kept reachable by the
 * completions that reference them until the request completes.
 */
public final class ProgressEngine implements AutoCloseable {

    private static final int PROBES_PER_PASS = 64;
    /** Waiters are unparked by completions; this bound only guards against a lost wake-up. */
    private static final long SAFETY_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final Mpi mpi;
    private final MpiAbi abi;
    private final long comm;
    private final long byteType;
    private final EngineOptions options;
    private final InboundRouter router;
    private final ReentrantLock lock = new ReentrantLock();
    private final ConcurrentLinkedQueue<Outbound> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger drivers = new AtomicInteger();
    /** Threads parked in {@link #await}: while some wait, the engine thread yields longer before parking. */
    private final AtomicInteger parkedWaiters = new AtomicInteger();
    private final Arena arena = Arena.ofShared();
    private final MemorySegment flag;
    private final MemorySegment outCount;
    private final MemorySegment count;
    private final MemorySegment message;
    private final MemorySegment status;
    private final MemorySegment scratch;
    private MemorySegment requests;
    private MemorySegment indices;
    private Completion[] completions;
    private boolean[] busy;
    private int active;
    /** Requests of transfers larger than eager: they progress only while someone calls MPI. */
    private volatile int busyRequests;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile boolean sleeping;
    private volatile RuntimeException failure;

    public ProgressEngine(Mpi mpi, long comm, EngineOptions options, InboundRouter router) {
        this.mpi = mpi;
        this.abi = mpi.abi();
        this.comm = comm;
        this.byteType = abi.byteType();
        this.options = options;
        this.router = router;
        this.flag = arena.allocate(JAVA_INT);
        this.outCount = arena.allocate(JAVA_INT);
        this.count = arena.allocate(JAVA_INT);
        this.message = arena.allocate(8, 8);
        this.status = arena.allocate(abi.statusBytes(), 8);
        this.scratch = arena.allocate(options.eagerBytes(), 64);
        this.completions = new Completion[64];
        this.busy = new boolean[64];
        this.requests = arena.allocate(abi.handleBytes() * 64, 8);
        this.indices = arena.allocate(JAVA_INT.byteSize() * 64, 4);
        this.thread = Thread.ofPlatform().name("dask4j-mpi-progress").daemon(true).unstarted(this::run);
    }

    public void start() {
        thread.start();
    }

    public Mpi mpi() {
        return mpi;
    }

    public long comm() {
        return comm;
    }

    public EngineOptions options() {
        return options;
    }

    /** The error that broke the engine, or null while it works. */
    public RuntimeException failure() {
        return failure;
    }

    /**
     * Queues work for the next pass. A platform caller then tries to post it at once (if nobody else
     * drives); otherwise the engine thread is woken. Any thread.
     */
    public void submit(Outbound work) {
        queue.add(work);
        if (!tryDrive()) {
            wakeUp();
        }
    }

    /** Wakes the engine thread if it is parked. Any thread. */
    public void wakeUp() {
        if (sleeping) {
            LockSupport.unpark(thread);
        }
    }

    /**
     * Does one pass if the calling platform thread can take the lock without waiting; false if it cannot
     * (virtual thread, already driving, or someone else drives).
     */
    public boolean tryDrive() {
        if (options.callerSpinNanos() == 0 || Thread.currentThread().isVirtual() || lock.isHeldByCurrentThread()
                || !lock.tryLock()) {
            return false;
        }
        try {
            doWork();
        } finally {
            lock.unlock();
        }
        return true;
    }

    /**
     * Waits until {@code done} holds or {@code timeoutNanos} pass; true if done. A platform thread drives
     * progress itself for up to {@link EngineOptions#callerSpinNanos()}, then parks; the code that makes
     * {@code done} true must unpark the waiting thread (the park is also bounded to 1 ms as a safety net).
     */
    public boolean await(BooleanSupplier done, long timeoutNanos) {
        if (done.getAsBoolean()) {
            return true;
        }
        long start = System.nanoTime();
        boolean canDrive = options.callerSpinNanos() > 0 && !Thread.currentThread().isVirtual()
                && !lock.isHeldByCurrentThread();
        if (canDrive) {
            drivers.incrementAndGet();
            try {
                // Drive while the reply may come any moment, and for as long as large transfers are in
                // flight (they only move while someone calls MPI).
                while (System.nanoTime() - start < options.callerSpinNanos() || busyRequests > 0) {
                    if (lock.tryLock()) {
                        try {
                            doWork();
                        } finally {
                            lock.unlock();
                        }
                    } else {
                        Thread.onSpinWait();
                    }
                    if (done.getAsBoolean()) {
                        return true;
                    }
                    if (System.nanoTime() - start >= timeoutNanos || failure != null) {
                        return done.getAsBoolean();
                    }
                }
            } finally {
                drivers.decrementAndGet();
            }
        }
        // Parking: the engine thread takes over progress; whoever makes done true unparks us.
        parkedWaiters.incrementAndGet();
        try {
            wakeUp();
            while (!done.getAsBoolean()) {
                long left = timeoutNanos - (System.nanoTime() - start);
                if (left <= 0) {
                    return false;
                }
                LockSupport.parkNanos(this, Math.min(left, SAFETY_PARK_NANOS));
            }
            return true;
        } finally {
            parkedWaiters.decrementAndGet();
        }
    }

    /**
     * Runs {@code call} holding the engine's lock, so that it may call MPI (collectives, communicator
     * management) without racing the engine. Platform threads only; the engine makes no progress meanwhile.
     */
    public <T> T exclusive(Supplier<T> call) {
        if (Thread.currentThread().isVirtual()) {
            throw new IllegalStateException("MPI must not be called from a virtual thread");
        }
        lock.lock();
        try {
            return call.get();
        } finally {
            lock.unlock();
        }
    }

    /** Posts {@code MPI_Isend} of {@code buf} and tracks it; returns the MPI error code. Only while driving. */
    public int isend(MemorySegment buf, int dest, int tag, Completion completion) {
        int rc = track(slot -> mpi.isend(buf, Math.toIntExact(buf.byteSize()), byteType, dest, tag, comm, slot), completion);
        if (rc == Mpi.SUCCESS && buf.byteSize() > options.eagerBytes()) {
            markBusy();
        }
        return rc;
    }

    private void markBusy() {
        busy[active - 1] = true;
        busyRequests++;
    }

    /**
     * Makes {@code call} (any non-blocking MPI call, e.g. MPI_Ibarrier) and tracks its request until it
     * completes; returns the MPI error code. Only while driving.
     */
    public int track(RequestCall call, Completion completion) {
        ensureCapacity();
        int rc = call.call(requestSlot(active));
        if (rc == Mpi.SUCCESS) {
            completions[active++] = completion;
        }
        return rc;
    }

    /** One pass; returns how much work it found. Only with the lock held. */
    int doWork() {
        if (failure != null) {
            return 0;
        }
        try {
            int work = 0;
            Outbound out;
            while ((out = queue.poll()) != null) {
                out.post(this);
                work++;
            }
            if (active > 0) {
                work += testRequests();
            }
            return work + probe();
        } catch (RuntimeException e) {
            // An MPI error here (or a bug in a completion) leaves MPI state unknown: fail loudly, not hang.
            fail(e);
            return 1;
        }
    }

    private int testRequests() {
        mpi.check(mpi.testsome(active, requests, outCount, indices, abi.statusIgnore()), "MPI_Testsome");
        int done = outCount.get(JAVA_INT, 0);
        if (done <= 0) {
            return 0;
        }
        Completion[] finished = new Completion[done];
        for (int i = 0; i < done; i++) {
            int index = indices.getAtIndex(JAVA_INT, i);
            finished[i] = completions[index];
            completions[index] = null;
            if (busy[index]) {
                busy[index] = false;
                busyRequests--;
            }
        }
        int kept = 0;
        for (int i = 0; i < active; i++) {
            if (completions[i] != null) {
                if (kept != i) {
                    abi.writeHandle(requests, kept, abi.readHandle(requests, i));
                    completions[kept] = completions[i];
                    completions[i] = null;
                    busy[kept] = busy[i];
                    busy[i] = false;
                }
                kept++;
            }
        }
        active = kept;
        for (Completion c : finished) {
            c.onComplete(Mpi.SUCCESS);
        }
        return done;
    }

    private int probe() {
        int work = 0;
        for (int i = 0; i < PROBES_PER_PASS; i++) {
            mpi.check(mpi.improbe(abi.anySource(), abi.anyTag(), comm, flag, message, status), "MPI_Improbe");
            if (flag.get(JAVA_INT, 0) == 0) {
                break;
            }
            work++;
            int source = abi.statusSource(status);
            int tag = abi.statusTag(status);
            mpi.check(mpi.getCount(status, byteType, count), "MPI_Get_count");
            int bytes = count.get(JAVA_INT, 0);
            if (bytes <= options.eagerBytes()) {
                mpi.check(mpi.mrecv(scratch, bytes, byteType, message, abi.statusIgnore()), "MPI_Mrecv");
                router.onEager(source, tag, scratch.asSlice(0, bytes));
            } else {
                InboundRouter.Target target = router.onLarge(source, tag, bytes);
                if (target == null) {
                    MemorySegment sink = Arena.ofAuto().allocate(bytes);
                    target = new InboundRouter.Target(sink, rc -> sink.byteSize(), false);
                }
                if (target.blocking()) {
                    MemorySegment buffer = target.buffer();
                    mpi.check(buffer.isNative()
                            ? mpi.mrecvBlocking(buffer, bytes, byteType, message, abi.statusIgnore())
                            : mpi.mrecvHeap(buffer, bytes, byteType, message, abi.statusIgnore()), "MPI_Mrecv");
                    target.completion().onComplete(Mpi.SUCCESS);
                    continue;
                }
                ensureCapacity();
                mpi.check(mpi.imrecv(target.buffer(), bytes, byteType, message, requestSlot(active)), "MPI_Imrecv");
                completions[active++] = target.completion();
                markBusy();
            }
        }
        return work;
    }

    private MemorySegment requestSlot(int index) {
        return requests.asSlice(index * abi.handleBytes(), abi.handleBytes());
    }

    private void ensureCapacity() {
        if (active < completions.length) {
            return;
        }
        int capacity = completions.length * 2;
        MemorySegment grown = arena.allocate(abi.handleBytes() * capacity, 8);
        MemorySegment.copy(requests, 0, grown, 0, abi.handleBytes() * active);
        requests = grown;
        indices = arena.allocate(JAVA_INT.byteSize() * capacity, 4);
        completions = Arrays.copyOf(completions, capacity);
        busy = Arrays.copyOf(busy, capacity);
    }

    private void fail(RuntimeException cause) {
        failure = cause;
        for (int i = 0; i < active; i++) {
            Completion c = completions[i];
            completions[i] = null;
            busy[i] = false;
            c.onComplete(cause instanceof MpiException m && m.errorCode() > 0 ? m.errorCode() : -1);
        }
        active = 0;
        busyRequests = 0;
        router.onEngineFailure(cause);
    }

    private void run() {
        BackoffIdler idler = new BackoffIdler(options);
        while (running) {
            if (drivers.get() > 0) {
                idler.parkAtCap(this);
                idler.reset();
                continue;
            }
            int work = 0;
            if (lock.tryLock()) {
                try {
                    work = doWork();
                } finally {
                    lock.unlock();
                }
            }
            if (work > 0) {
                idler.reset();
            } else if (busyRequests > 0) {
                Thread.yield(); // a large transfer is in flight: keep it moving
            } else if (idler.willPark(parkedWaiters.get() > 0)) {
                sleeping = true;
                if (queue.isEmpty() && running) {
                    idler.idle(this, false);
                }
                sleeping = false;
            } else {
                idler.idle(this, parkedWaiters.get() > 0);
            }
        }
    }

    /** Stops the engine thread (bounded wait). Does not finalize MPI. Any thread but the engine's. */
    @Override
    public void close() {
        running = false;
        LockSupport.unpark(thread);
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
