package io.dask4j.mpi.engine;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * How threads wait for the engine ({@link ProgressEngine#await}): a platform thread drives passes itself for a
 * while (caller-runs, like Aeron's AgentInvoker: no park/unpark hand-off, ~7 us on a small machine, DESIGN §5),
 * then parks until whoever makes its condition true unparks it; a virtual thread parks at once (a native call
 * would pin its carrier). Counts the drivers (the engine thread stays parked while any drive, so no more threads
 * spin than there are cores), the parked waiters (the engine thread yields longer before parking while any wait)
 * and the threads waiting for sends (eager sends are then polled for promptly).
 *
 * <p>Any thread.
 */
final class CallerRuns {

    /** Waiters are unparked by whatever makes their condition true; this bound only guards a lost wake-up. */
    private static final long SAFETY_PARK_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final ProgressEngine engine;
    private final EngineOptions options;
    private final Doorbells doorbells;
    private final RequestTable requests;
    private final EngineStats stats;
    final AtomicInteger drivers = new AtomicInteger();
    final AtomicInteger parkedWaiters = new AtomicInteger();
    final AtomicInteger sendWaiters = new AtomicInteger();

    CallerRuns(ProgressEngine engine, EngineOptions options, Doorbells doorbells, RequestTable requests, EngineStats stats) {
        this.engine = engine;
        this.requests = requests;
        this.stats = stats;
        this.options = options;
        this.doorbells = doorbells;
    }

    /** Whether the calling thread drives progress itself when it waits or submits. */
    boolean callerRuns() {
        return options.callerSpinNanos() > 0 && !Thread.currentThread().isVirtual();
    }

    /**
     * See {@link ProgressEngine#drivingSpell}. Unlike {@link #await}'s caller-runs this ignores {@link
     * EngineOptions#callerSpinNanos()}: the caller decides how long it stays awake (and yields between passes, so
     * on a node with more ranks than cores it gives the core to whoever else is runnable).
     */
    io.dask4j.comm.CallerProgress.Driving spell() {
        if (Thread.currentThread().isVirtual() || !engine.isRunning() || engine.isDriving()) {
            return io.dask4j.comm.CallerProgress.Driving.IDLE;
        }
        drivers.incrementAndGet();
        return new io.dask4j.comm.CallerProgress.Driving() {
            private boolean ended;

            @Override
            public boolean drive() {
                return !ended && engine.isRunning() && engine.tryPass() > 0;
            }

            @Override
            public void close() {
                if (!ended) {
                    ended = true;
                    if (drivers.decrementAndGet() == 0) {
                        engine.driversLeft();   // it parked while this thread drove: progress is its job again
                    }
                }
            }
        };
    }

    /** Does one pass if the calling platform thread can take the lock at once; false if it cannot. */
    boolean tryDrive() {
        if (!callerRuns() || engine.isDriving()) {
            return false;
        }
        return engine.tryPass() >= 0;
    }

    /**
     * A writer posts its own message (one {@code MPI_Isend}, then one {@code MPI_Testsome}) when the engine's lock is
     * free, so that it need not wait for the engine thread to wake up: on an oversubscribed node that wake-up was a
     * median of 120-140 us and a 90th percentile of 1-2 ms per message. Not for a thread that drives by waiting (a
     * platform thread with caller-runs on: it submits, and its submit drives a full pass). The engine thread is
     * woken only if a request is left outstanding.
     */
    boolean tryPost(Outbound work) {
        ReentrantLock lock = engine.lock();
        if (!engine.isRunning() || callerRuns() || lock.isHeldByCurrentThread() || !lock.tryLock()) {
            return false;   // after close() MPI may be finalized: only the engine's own queue may hold work then
        }
        boolean outstanding;
        try {
            work.post(engine);
            stats.postedByWriter();
            requests.testSome();
            outstanding = !requests.isEmpty();
            engine.active();
        } catch (RuntimeException | Error e) {
            engine.failed(e); // as in a pass: an MPI error leaves MPI state unknown
            return true;
        } finally {
            lock.unlock();
        }
        if (outstanding) {
            engine.wakeUp(); // only the engine completes what is left
        }
        return true;
    }

    /**
     * See {@link ProgressEngine#await}: a platform thread drives passes itself for up to {@link
     * EngineOptions#callerSpinNanos()} (and while large transfers are in flight), then parks.
     */
    boolean await(BooleanSupplier done, long timeoutNanos) {
        if (done.getAsBoolean()) {
            return true;
        }
        long start = System.nanoTime();
        if (callerRuns() && !engine.isDriving()) {
            drivers.incrementAndGet();
            try {
                // Drive while the reply may come any moment, and while large transfers are in flight (they move
                // only while someone calls MPI).
                while (System.nanoTime() - start < options.callerSpinNanos() || requests.busy() > 0) {
                    if (engine.tryPass() <= 0) {
                        idleBetweenPasses();
                    }
                    if (done.getAsBoolean()) {
                        return true;
                    }
                    if (System.nanoTime() - start >= timeoutNanos || engine.failure() != null
                            || Thread.currentThread().isInterrupted()) {
                        return done.getAsBoolean();
                    }
                }
            } finally {
                if (drivers.decrementAndGet() == 0) {
                    engine.driversLeft();
                }
            }
        }
        // Parking: the engine thread drives. It need not be woken when every rank can ring it: what we wait for
        // arrives with a ring, or needs a request that keeps the engine polling (whose submitter woke it).
        parkedWaiters.incrementAndGet();
        try {
            if (!doorbells.coversAll()) {
                engine.wakeUp();
            }
            while (!done.getAsBoolean()) {
                long left = timeoutNanos - (System.nanoTime() - start);
                if (left <= 0 || Thread.currentThread().isInterrupted()) {
                    return false;
                }
                LockSupport.parkNanos(engine, Math.min(left, SAFETY_PARK_NANOS));
            }
            return true;
        } finally {
            parkedWaiters.decrementAndGet();
        }
    }

    /**
     * Between a waiting thread's passes that found nothing: spin where the node has a core per rank; yield where it
     * has more ranks than cores (the engine's own idle neither spins nor yields there), so that the core goes to
     * whoever else is runnable, the peer that is about to answer included.
     */
    private void idleBetweenPasses() {
        if (options.spins() == 0 && options.yieldNanos() == 0 && !options.pureSpin()) {
            Thread.yield();
        } else {
            Thread.onSpinWait();
        }
    }

    /** See {@link ProgressEngine#awaitSends}. */
    boolean awaitSends(BooleanSupplier done, long timeoutNanos) {
        sendWaiters.incrementAndGet();
        try {
            engine.wakeUp(); // it may be in one of its longer sleeps with only eager sends outstanding
            return await(done, timeoutNanos);
        } finally {
            sendWaiters.decrementAndGet();
        }
    }
}
