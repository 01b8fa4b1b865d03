package io.dask4j.mpi.engine;

import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The engine's dedicated platform thread {@code dask4j-mpi-progress} (the agent runner): runs passes while they
 * find work and, when one finds none, waits as its {@link IdleStrategy} says: spins, yields, parks, or sleeps on
 * the rank's {@link Doorbells} until a sender rings. It stays parked while another thread drives the engine
 * (caller-runs), so that no more threads spin than there are cores, and yields while a large transfer is in
 * flight (it moves only while someone calls MPI). It also switches Open MPI's idle yield with the pace of
 * messages ({@link ProgressEngine#adaptOpenMpiIdleYield}).
 *
 * <p>{@link #wakeUp} and {@link #stop} from any thread; the rest runs on the thread itself.
 */
final class EngineThread {

    private final ProgressEngine engine;
    private final CallerRuns callers;
    private final RequestTable requests;
    private final InboundRouter router;
    private final Doorbells doorbells;
    private final EngineStats stats;
    private final EngineOptions options;
    private final Thread thread;
    private volatile boolean sleeping;
    /** The idle strategy of the running thread (made when it starts). */
    private IdleStrategy idle;
    private final EngineIdleEvent.Sleeper sleeper = (blocker, nanos) -> sleep(idle, nanos);
    /** Whether the thread switches Open MPI's idle yield; set before start. */
    private boolean adaptiveIdleYield;
    private boolean idleYieldOn;

    EngineThread(ProgressEngine engine, CallerRuns callers, RequestTable requests, InboundRouter router,
                 Doorbells doorbells, EngineStats stats) {
        this.engine = engine;
        this.callers = callers;
        this.requests = requests;
        this.router = router;
        this.doorbells = doorbells;
        this.stats = stats;
        this.options = engine.options();
        this.thread = Thread.ofPlatform().name("dask4j-mpi-progress").daemon(true).unstarted(this::run);
    }

    void start(boolean adaptIdleYield) {
        this.adaptiveIdleYield = adaptIdleYield;
        thread.start();
    }

    /** Wakes the thread if it is parked or asleep on its doorbell. Any thread. */
    void wakeUp() {
        if (sleeping) {
            LockSupport.unpark(thread);
            doorbells.ringSelf();
        }
    }

    /**
     * Ends the park this thread takes while other threads drive (it is not asleep on the doorbell then, so no
     * sender rings it): without this it would see the next message only when the park runs out. Any thread.
     */
    void unparkFromDriving() {
        LockSupport.unpark(thread);
    }

    /** Ends the thread (the engine has stopped running) and waits for it, bounded. Any thread but this one. */
    void stop() {
        LockSupport.unpark(thread);
        doorbells.ringSelf();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        try {
            runPasses();
        } catch (RuntimeException | Error e) {
            engine.failed(e); // whatever escapes fails the engine loudly
        }
    }

    private void runPasses() {
        idle = new IdleStrategy(options, doorbells.coversAll(), System.nanoTime());
        while (engine.isRunning()) {
            if (callers.drivers.get() > 0) {
                // A waiting thread drives progress itself: stay out of its way (one busy thread per core).
                stats.idleFrom(System.nanoTime());
                LockSupport.parkNanos(this, options.maxParkNanos());
                stats.idleUntil(System.nanoTime());
                idle.rearm(System.nanoTime());
                continue;
            }
            int work = engine.tryPass();
            if (work > 0) {
                long now = System.nanoTime();
                stats.idleUntil(now);
                idle.onWork(now);
                adaptIdleYield(idle);
                if (!idle.parksAtOnce() || !doorbells.enabled()) {
                    continue;
                }
                // An engine that parks at once (oversubscribed node) goes straight to its doorbell sleep: the sleep
                // polls once more after marking the engine asleep, so a pass here would only repeat that poll.
            }
            stats.idleFrom(System.nanoTime());
            boolean waiters = callers.parkedWaiters.get() > 0;
            if (requests.busy() > 0) {
                Thread.yield(); // a large transfer is in flight: keep it moving
                continue;
            }
            if (idle.willPark(waiters, System.nanoTime())) {
                sleeping = true; // from now on a submitter wakes us (wakeUp)
                if (engine.nothingQueued() && engine.isRunning()) {
                    idleOnce(idle, false);
                }
                sleeping = false;
            } else {
                idleOnce(idle, waiters);
            }
        }
    }

    private void idleOnce(IdleStrategy idle, boolean waiters) {
        switch (idle.next(waiters, System.nanoTime())) {
            case SPIN -> Thread.onSpinWait();
            case YIELD -> Thread.yield();
            case PARK -> {
                if (EngineIdleEvent.sleep(sleeper, this, idle.parkNanos())) {
                    idle.onWork(System.nanoTime());
                } else {
                    idle.parkedQuietly(System.nanoTime());
                }
            }
        }
    }

    /**
     * A park, as a doorbell sleep when there are doorbells: mark this rank asleep, poll once more (a message posted
     * before the mark was visible is found now), then sleep as long as the idle strategy says, until a sender or a
     * local submitter rings. True if the poll found work or a ring ended the sleep.
     */
    private boolean sleep(IdleStrategy idle, long park) {
        if (!doorbells.enabled()) {
            LockSupport.parkNanos(this, park);
            return false;
        }
        doorbells.prepareSleep();
        IdleStrategy.Outstanding outstanding = null;
        int work = 0;
        ReentrantLock lock = engine.lock();
        if (lock.tryLock()) {
            try {
                work = engine.doWork();
                // One announced and not yet received is on its way (MPI has not shown it yet): not quiet.
                outstanding = new IdleStrategy.Outstanding(requests.isEmpty(), requests.onlyEagerSends(),
                        doorbells.allAnnouncedArrived(), router.anyPaused(), callers.sendWaiters.get() > 0,
                        engine.lastActiveNanos());
            } finally {
                lock.unlock();
            }
        }
        if (work > 0 || !engine.nothingQueued() || !engine.isRunning()) {
            doorbells.cancelSleep();
            return work > 0;
        }
        if (outstanding == null) { // someone else drives: only the backoff's park
            outstanding = new IdleStrategy.Outstanding(false, false, false, false, true, 0);
        }
        idle.everyRankRings(doorbells.coversAll());
        long nanos = idle.sleepNanos(park, outstanding, System.nanoTime());
        boolean rung = doorbells.sleep(nanos);
        idle.slept(nanos, rung, System.nanoTime());
        stats.sleptOnDoorbell(rung);
        if (rung) {
            engine.active(); // what rang may need a few polls to show: back off from the start
        } else if (idle.longSleepTimedOut()) {
            engine.longSleepRanOut();
        }
        return rung;
    }

    /** Open MPI's idle yield on while messages come in quick succession, off while they come rarely. */
    private void adaptIdleYield(IdleStrategy idle) {
        if (adaptiveIdleYield) {
            boolean frequent = idle.messagesFrequent();
            if (frequent != idleYieldOn) {
                idleYieldOn = frequent;
                engine.mpi().openMpiIdleYield(frequent);
            }
        }
    }
}
