package io.dask4j.mpi.engine;

import io.dask4j.comm.stats.TransportGauges;
import io.dask4j.mpi.binding.Mpi;
import io.dask4j.mpi.binding.MpiException;
import io.dask4j.mpi.binding.PointToPoint;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The one place that drives MPI point-to-point traffic of a process on one communicator: an agent whose {@link
 * #doWork()} does one pass (post queued sends, test requests and run their {@link Completion}s, match and receive
 * with {@link IncomingMatcher}, let the {@link InboundRouter} deliver to push-mode receivers) and returns the work
 * found. Whoever holds the engine's lock drives: its {@link EngineThread}, idling as its {@link IdleStrategy}
 * says; a platform thread waiting in {@link #await}, or a writer posting its own message ({@link #tryPost}): see
 * {@link CallerRuns}; and what is submitted while driving is posted at once ({@link #submit}).
 *
 * <p><b>Threads.</b> {@link #submit}, {@link #submitLazily}, {@link #tryPost}, {@link #await}, {@link #wakeUp},
 * {@link #ring} and {@link #close} from any thread; {@link #isend}, {@link #track} and {@link #testRequests} only
 * while driving (from an {@link Outbound}, a {@link Completion} or a router call). Buffers of posted requests are
 * kept reachable by the completions that reference them until the request completes.
 */
public final class ProgressEngine implements AutoCloseable {

    /** The name under which the engine publishes its figures in {@link TransportGauges}. */
    public static final String GAUGES = "mpi_engine";

    private final PointToPoint mpi;
    private final long comm;
    private final long byteType;
    private final EngineOptions options;
    private final InboundRouter router;
    private final ReentrantLock lock = new ReentrantLock();
    private final Outbox outbox = new Outbox();
    private final CallerRuns callers;
    private final Arena arena = Arena.ofShared();
    private final RequestTable requests;
    private final EngineStats stats;
    private final IncomingMatcher matcher;
    private final Doorbells doorbells;
    private final EngineThread thread;
    private volatile long lastActiveNanos;
    private volatile boolean running = true;
    /** Whether the engine thread switches Open MPI's idle yield ({@link #adaptOpenMpiIdleYield}). */
    private boolean adaptiveIdleYield;
    /** The last long doorbell sleep ran out without a ring: a message the next pass finds came unannounced. */
    private volatile boolean longSleepTimedOut;
    private volatile RuntimeException failure;

    public ProgressEngine(PointToPoint mpi, long comm, EngineOptions options, InboundRouter router) {
        this(mpi, comm, options, router, Doorbells.NONE);
    }

    /** An engine whose thread sleeps on its {@link Doorbells} (set up collectively beforehand) and rings peers'. */
    public ProgressEngine(PointToPoint mpi, long comm, EngineOptions options, InboundRouter router, Doorbells doorbells) {
        this.mpi = mpi;
        this.doorbells = doorbells;
        this.comm = comm;
        this.byteType = mpi.abi().byteType();
        this.options = options;
        this.router = router;
        this.requests = new RequestTable(mpi, arena);
        this.stats = new EngineStats(() -> requests.sends() + outbox.size(), requests::receives, System::nanoTime);
        this.stats.doorbellRanks(doorbells.ringableRanks());
        this.matcher = new IncomingMatcher(mpi, comm, options.eagerBytes(), router, requests, stats, doorbells, arena);
        this.callers = new CallerRuns(this, options, doorbells, requests, stats);
        this.thread = new EngineThread(this, callers, requests, router, doorbells, stats);
    }

    /** Starts the engine thread and publishes the engine's gauges as {@value #GAUGES}. */
    public void start() {
        thread.start(adaptiveIdleYield);
        TransportGauges.register(GAUGES, stats);
    }

    /** The point-to-point MPI this engine drives (the FFM binding, or an in-process fake in tests). */
    public PointToPoint mpi() {
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

    /** Whether the engine still runs passes (not closed, not failed). Any thread. */
    public boolean isRunning() {
        return running && failure == null;
    }

    /**
     * Queues work for the next pass. While driving it is posted at once (after what was queued before it); else a
     * platform caller tries to drive a pass itself, and otherwise the engine thread is woken. Any thread.
     */
    public void submit(Outbound work) {
        outbox.add(work);
        if (lock.isHeldByCurrentThread()) {
            if (isRunning()) {
                outbox.postAll(this, stats);
            }
        } else if (!running || !callers.tryDrive()) {
            wakeUp();
        }
    }

    /** Posts {@code work} on this thread if the lock is free at once, else false: then {@link #submit} it. Any thread. */
    public boolean tryPost(Outbound work) {
        return callers.tryPost(work);
    }

    /**
     * Queues work for whichever pass comes next without waking the engine thread (polls that may wait, such as a
     * rank's main thread looking for a rare control message). An idle engine passes at least once a second.
     */
    public void submitLazily(Outbound work) {
        outbox.addLazily(work);
    }

    /** Wakes {@code rank}'s engine if it sleeps on its doorbell (see {@link Doorbells#ring}). Any thread. */
    public void ring(int rank) {
        doorbells.ring(rank);
    }

    /**
     * Declares that only the ranks of this node send to this rank over the engine's communicator (ranks on other
     * nodes reach it over tcp): the idle engine then sleeps on its doorbell as in a one-node job instead of polling
     * for messages from other nodes. A message that a rank of another node sends over MPI anyway ends this (see
     * {@link Doorbells#expectOnlyNodeSenders}). Any thread.
     */
    public void expectOnlyNodeSenders() {
        doorbells.expectOnlyNodeSenders();
    }

    /** Wakes the engine thread if it is parked or asleep on its doorbell. Any thread. */
    public void wakeUp() {
        thread.wakeUp();
    }

    /**
     * Waits until {@code done} holds or {@code timeoutNanos} pass; true if done; whoever makes {@code done} true must
     * unpark the waiter; an interrupted thread returns at once (flag kept). See {@link CallerRuns#await}. Any thread.
     */
    public boolean await(BooleanSupplier done, long timeoutNanos) {
        return callers.await(done, timeoutNanos);
    }

    /** {@link #await} for a condition that needs this process's sends to complete: eager sends are polled promptly. */
    public boolean awaitSends(BooleanSupplier done, long timeoutNanos) {
        return callers.awaitSends(done, timeoutNanos);
    }

    /** Runs {@code call} holding the engine's lock (collectives, communicator management). Platform threads only. */
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

    /** A waiting thread's spell of driving ({@link io.dask4j.comm.CallerProgress}, {@link CallerRuns#spell}). */
    public io.dask4j.comm.CallerProgress.Driving drivingSpell() {
        return callers.spell();
    }

    /** Whether the calling thread drives the engine now (holds its lock): it must not wait for the engine. */
    public boolean isDriving() {
        return lock.isHeldByCurrentThread();
    }

    /** Posts {@code MPI_Isend} of {@code buf} and tracks it; returns the MPI error code. Only while driving. */
    public int isend(MemorySegment buf, int dest, int tag, Completion completion) {
        long bytes = buf.byteSize();
        int rc = mpi.isend(buf, Math.toIntExact(bytes), byteType, dest, tag, comm, requests.nextSlot());
        if (rc == Mpi.SUCCESS) {
            requests.addSend(completion, bytes > options.eagerBytes());
            stats.sent(bytes);
            doorbells.announce(dest);
        }
        return rc;
    }

    /** Makes a non-blocking MPI call (e.g. MPI_Ibarrier) and tracks its request; returns the error code. Driving. */
    public int track(RequestCall call, Completion completion) {
        int rc = call.call(requests.nextSlot());
        if (rc == Mpi.SUCCESS) {
            requests.add(completion, false, false);
        }
        return rc;
    }

    /** Tests the outstanding requests and runs the completions of those done; returns how many. Only while driving. */
    public int testRequests() {
        return requests.testSome();
    }

    /** One pass (post, test, probe, deliver); returns how much work it found. Only with the lock held. */
    int doWork() {
        if (failure != null) {
            return 0;
        }
        try {
            stats.pass();
            int work = outbox.postAll(this, stats);
            work += requests.testSome();
            int received = matcher.probe();
            if (longSleepTimedOut) {
                longSleepTimedOut = false;
                if (received > 0) {
                    stats.unannounced();
                }
            }
            work += received + router.deliver();
            if (work > 0) {
                lastActiveNanos = System.nanoTime();
            }
            return work;
        } catch (RuntimeException | Error e) {
            // An MPI error (or a bug in a completion, or an OutOfMemoryError for a received frame) leaves MPI state
            // unknown, and every comm of the rank waits on this engine: fail loudly, not hang.
            failed(e);
            return 1;
        }
    }

    /** A pass if the lock is free at once (the work it found), else -1. For the engine thread and waiters. */
    int tryPass() {
        if (!lock.tryLock()) {
            return -1;
        }
        try {
            return doWork();
        } finally {
            lock.unlock();
        }
    }

    /** The last thread driving in a spell or in {@link #await} stopped: the engine thread must not sleep on. */
    void driversLeft() {
        thread.unparkFromDriving();
    }

    /** Marks the engine active now (work was found, a ring came, a writer posted). */
    void active() {
        lastActiveNanos = System.nanoTime();
    }

    /** The engine thread's last long sleep ran out without a ring: the next pass counts unannounced arrivals. */
    void longSleepRanOut() {
        longSleepTimedOut = true;
    }

    boolean nothingQueued() {
        return outbox.isEmpty();
    }

    long lastActiveNanos() {
        return lastActiveNanos;
    }

    ReentrantLock lock() {
        return lock;
    }

    /** Fails the engine (once): comms close first, then every outstanding request fails, then receivers hear it. */
    void failed(Throwable thrown) {
        if (failure != null) {
            return;
        }
        RuntimeException cause = thrown instanceof RuntimeException e ? e
                : new IllegalStateException("the MPI progress engine failed: " + thrown, thrown);
        failure = cause;
        // Comms close first: a receive completion that fails below then cannot hand a reader a message that
        // looks complete in the window before its comm is closed.
        router.onEngineFailure(cause);
        requests.failAll(cause instanceof MpiException m && m.errorCode() > 0 ? m.errorCode() : -1);
        router.deliver(); // push-mode receivers learn that their comms ended: no pass will run again
    }

    /** The engine thread switches Open MPI's idle yield ({@link Mpi#openMpiIdleYield}), see {@link EngineThread}. */
    public void adaptOpenMpiIdleYield() {
        adaptiveIdleYield = mpi.openMpiIdleYield(false);
    }

    /** Stops the engine thread (bounded wait). Does not finalize MPI. Any thread but the engine's. */
    @Override
    public void close() {
        TransportGauges.unregister(GAUGES, stats);
        running = false;
        thread.stop();
        router.deliver(); // push-mode receivers of comms that ended with the engine learn it now
    }
}
