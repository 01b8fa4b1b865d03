package io.dask4j.mpi.engine;

import io.dask4j.comm.stats.TransportGauges;
import io.dask4j.mpi.binding.Mpi;
import io.dask4j.mpi.binding.PointToPoint;
import io.dask4j.mpi.binding.MpiAbi;
import io.dask4j.mpi.binding.MpiException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
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
 * messages with {@code MPI_Improbe(ANY_SOURCE, ANY_TAG)} (source by source while the router pauses some, see
 * {@link IncomingMatcher}) and receives them ({@code MPI_Mrecv} into scratch
 * memory when small, {@code MPI_Imrecv} into the router's buffer when large), handing each to the {@link
 * InboundRouter}. No user code runs in a pass.
 *
 * <p><b>Who drives.</b> Whoever holds the engine's lock: the dedicated platform thread {@code
 * dask4j-mpi-progress}, which idles with a backoff ({@link EngineOptions}) when a pass finds nothing, or a
 * platform thread that waits for something ({@link #await}: caller-runs, like Aeron's AgentInvoker). A
 * waiter driving progress itself avoids the park/unpark hand-off that costs ~7 us on a small machine
 * (DESIGN.md §5, external design notes); while callers drive,
 * the engine thread stays parked so that no more threads spin than
 * there are cores. Virtual threads never wait by driving (a native call pins their carrier): they park and
 * are woken by the completion that concerns them. Any writer, virtual threads included, posts its own message
 * when it finds the lock free ({@link #tryPost}: one {@code MPI_Isend} and one {@code MPI_Testsome}, no
 * probing), so that a message need not wait for the engine thread to wake up.
 *
 * <p><b>Idle.</b> The engine thread backs off ({@link BackoffIdler}); with {@link Doorbells} it sleeps on a
 * futex that ranks of the same node ring when they send to it, so a neighbour's message wakes it at once
 * and a quiet engine need not poll every millisecond. Senders also count the messages they announce: an engine
 * that has received fewer than were announced to it keeps to short parks, so a message MPI shows only after
 * a ring (Open MPI's {@code MPI_Improbe} can answer "nothing" while queuing one) is found at once rather
 * than after a long sleep (the {@code doorbell_unannounced_total} gauge counts such late finds; it should
 * stay 0). A long sleep that runs out quietly doubles the next one, up to a second, so that an idle engine
 * wakes rarely; any work or ring starts it over at {@link EngineOptions#doorbellParkNanos()}. Open MPI's own
 * idle yield (a
 * {@code sched_yield()} in every empty progress call on an oversubscribed node) is switched on only while
 * messages come in quick succession ({@link #adaptOpenMpiIdleYield}).
 *
 * <p><b>Threads.</b> {@link #submit}, {@link #submitLazily}, {@link #tryPost}, {@link #await}, {@link #wakeUp},
 * {@link #ring} and {@link #close} may be called from any thread. {@link #isend} may only be called while driving
 * (from an {@link Outbound} or a {@link Completion}). Buffers of posted requests are kept reachable by the
 * completions that reference them until the request completes.
 */
public final class ProgressEngine implements AutoCloseable {

    /**
     * Waiters are unparked by whatever makes their condition true; this bound only guards against a lost
     * wake-up. Not shorter: every idle reader of a comm parks here, and at 50 ms their timed wake-ups were
     * most of the wake-ups of a job's virtual-thread carriers (each one steals a core on a small node); at
     * 500 ms, a worker rank's half a dozen idle readers still woke a carrier about 12 times a second.
     */
    private static final long SAFETY_PARK_NANOS = TimeUnit.SECONDS.toNanos(5);
    /**
     * How long a long doorbell sleep may grow: it only guards against a message that came without a ring (none
     * is known to), and each timed wake-up of an idle engine costs ~100 us of CPU on a busy small node, where it
     * runs on caches cold from the tasks (5 engines at 50 ms: ~100 wake-ups a second of the 20000² seed workload).
     */
    private static final long LONGEST_DOORBELL_SLEEP_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** First park of an engine whose only outstanding requests are eager sends (see {@link #sleep}). */
    private static final long EAGER_SEND_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** The name under which the engine publishes its figures in {@link TransportGauges}. */
    public static final String GAUGES = "mpi_engine";

    private final PointToPoint mpi;
    private final long comm;
    private final long byteType;
    private final EngineOptions options;
    private final InboundRouter router;
    private final ReentrantLock lock = new ReentrantLock();
    private final ConcurrentLinkedQueue<Queued> queue = new ConcurrentLinkedQueue<>();
    /** Work that waits for whichever pass comes next ({@link #submitLazily}). */
    private final ConcurrentLinkedQueue<Outbound> lazy = new ConcurrentLinkedQueue<>();
    private final AtomicInteger drivers = new AtomicInteger();
    /** Threads parked in {@link #await}: while some wait, the engine thread yields longer before parking. */
    private final AtomicInteger parkedWaiters = new AtomicInteger();
    /** Threads in {@link #awaitSends}: while some wait, eager sends are polled for as promptly as any request. */
    private final AtomicInteger sendWaiters = new AtomicInteger();
    private final Arena arena = Arena.ofShared();
    private final RequestTable requests;
    private final EngineStats stats;
    private final IncomingMatcher matcher;
    private final Doorbells doorbells;
    private final Thread thread;
    private volatile long lastActiveNanos;
    private volatile boolean running = true;
    private volatile boolean sleeping;
    /** Whether this engine switches Open MPI's idle yield (see {@link #adaptOpenMpiIdleYield}); set before start. */
    private boolean adaptiveIdleYield;
    /** Whether Open MPI's idle yield is on now; engine thread only once started. */
    private boolean idleYieldOn;
    /** The last long doorbell sleep ran out without a ring: a message the next pass finds came unannounced. */
    private volatile boolean longSleepTimedOut;
    /**
     * The next long doorbell sleep: {@link EngineOptions#doorbellParkNanos()} after any work or ring, doubling
     * after each one that runs out quietly, up to {@link #LONGEST_DOORBELL_SLEEP_NANOS}. Engine thread only.
     */
    private long longSleepNanos;
    /** The next park while only eager sends are outstanding: 1 ms after any work or ring, doubling. Engine thread only. */
    private long eagerSendParkNanos = EAGER_SEND_PARK_NANOS;
    private volatile RuntimeException failure;

    public ProgressEngine(PointToPoint mpi, long comm, EngineOptions options, InboundRouter router) {
        this(mpi, comm, options, router, Doorbells.NONE);
    }

    /**
     * An engine whose idle thread sleeps on its {@link Doorbells} (set up collectively beforehand) and which
     * rings the doorbells of the ranks it sends to.
     */
    public ProgressEngine(PointToPoint mpi, long comm, EngineOptions options, InboundRouter router, Doorbells doorbells) {
        this.mpi = mpi;
        this.doorbells = doorbells;
        this.comm = comm;
        this.byteType = mpi.abi().byteType();
        this.options = options;
        this.longSleepNanos = options.doorbellParkNanos();
        this.router = router;
        this.requests = new RequestTable(mpi, arena);
        this.stats = new EngineStats(() -> requests.sends() + queue.size(), requests::receives, System::nanoTime);
        this.stats.doorbellRanks(doorbells.ringableRanks());
        this.matcher = new IncomingMatcher(mpi, comm, options.eagerBytes(), router, requests, stats, doorbells, arena);
        this.thread = Thread.ofPlatform().name("dask4j-mpi-progress").daemon(true).unstarted(this::run);
    }

    /** Starts the engine thread and publishes the engine's gauges as {@value #GAUGES}. */
    public void start() {
        thread.start();
        TransportGauges.register(GAUGES, stats);
    }

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

    /**
     * Queues work for the next pass. A platform caller then tries to post it at once (if nobody else
     * drives); otherwise the engine thread is woken. Any thread.
     */
    public void submit(Outbound work) {
        queue.add(new Queued(work, System.nanoTime()));
        if (lock.isHeldByCurrentThread()) {
            // Submitted while driving (a push-mode handler's write, an ACCEPT): posted now, after whatever was
            // queued before it, rather than at the next pass.
            if (failure == null && running) {
                postQueued();
            }
            return;
        }
        if (!tryDrive()) {
            wakeUp();
        }
    }

    /**
     * Posts {@code work} from the calling thread, virtual threads included, if the engine's lock is free at
     * once; false (nothing done) otherwise, and the caller then {@linkplain #submit submits} it. Also false for
     * a thread that drives progress itself (a platform thread where caller-runs is on): {@link #submit} then
     * posts it in a full pass, and the engine thread stays out of the way of that thread's driving (waking it
     * after a large send lowered the 2-rank comm bandwidth at 1-64 MiB in two of three runs). The post runs
     * under the lock, so MPI_THREAD_SERIALIZED holds and a message's envelope and frames stay contiguous. Any
     * completions that are due run here too, as on any thread driving the engine.
     *
     * <p>Why: a submitted message waits for the engine thread to wake up and post it. On an oversubscribed
     * node, where the engine sleeps on its doorbell between messages, that wake-up was a median of 120-140 us
     * and a 90th percentile of 1-2 ms per message (traced on 5 ranks / 2 cores), paid at every hop of a chain
     * of messages (task finished, next task, fetch, reply). Posting here costs the caller one {@code MPI_Isend}
     * and one {@code MPI_Testsome}; the engine is woken only if a request is left outstanding. With Open MPI
     * that is nearly every send, since a small one completes only once the receiver has taken it; the woken
     * engine then waits for it with millisecond parks ({@link #sleep}), not microsecond ones.
     */
    public boolean tryPost(Outbound work) {
        if (failure != null || !running || callerRuns() || lock.isHeldByCurrentThread() || !lock.tryLock()) {
            return false;   // after close() MPI may be finalized: only the engine's own queue may hold work then
        }
        boolean outstanding;
        try {
            work.post(this);
            stats.postedByWriter();
            requests.testSome();
            outstanding = !requests.isEmpty();
            lastActiveNanos = System.nanoTime();
        } catch (RuntimeException | Error e) {
            // As in a pass: an MPI error leaves MPI state unknown, so the engine fails loudly.
            fail(e);
            return true;
        } finally {
            lock.unlock();
        }
        if (outstanding) {
            wakeUp(); // only the engine completes what is left (it may be asleep with nothing to poll for)
        }
        return true;
    }

    /**
     * Queues work for whichever pass comes next, without waking the engine thread: for polls that may wait,
     * such as a rank's main thread looking for a rare control message every 200 ms. An idle engine passes at
     * least once a second (its longest doorbell sleep), a busy one at every message. Waking the engine for each
     * such poll was about a sixth of its wake-ups in the 20000² seed workload. Any thread.
     */
    public void submitLazily(Outbound work) {
        lazy.add(work);
    }

    /**
     * Wakes {@code rank}'s engine if it sleeps on its doorbell, after a message to it outside the engines'
     * communicator (see {@link Doorbells#ring}); a no-op without doorbells. Any thread.
     */
    public void ring(int rank) {
        doorbells.ring(rank);
    }

    /** Wakes the engine thread if it is parked or asleep on its doorbell. Any thread. */
    public void wakeUp() {
        if (sleeping) {
            LockSupport.unpark(thread);
            doorbells.ringSelf();
        }
    }

    /**
     * Does one pass if the calling platform thread can take the lock without waiting; false if it cannot
     * (virtual thread, already driving, or someone else drives).
     */
    public boolean tryDrive() {
        if (!running || !callerRuns() || lock.isHeldByCurrentThread() || !lock.tryLock()) {
            return false;   // after close() MPI may be finalized
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
     * {@code done} true must unpark the waiting thread (the park is also bounded to 5 s as a safety net).
     * An interrupted thread returns at once ({@code done}'s value; the flag stays set): its parks would not
     * block, so waiting on would spin a core. Callers that must wait regardless clear the flag first.
     */
    public boolean await(BooleanSupplier done, long timeoutNanos) {
        if (done.getAsBoolean()) {
            return true;
        }
        long start = System.nanoTime();
        boolean canDrive = callerRuns() && !lock.isHeldByCurrentThread();
        if (canDrive) {
            drivers.incrementAndGet();
            try {
                // Drive while the reply may come any moment, and for as long as large transfers are in
                // flight (they only move while someone calls MPI).
                while (System.nanoTime() - start < options.callerSpinNanos() || requests.busy() > 0) {
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
                    if (System.nanoTime() - start >= timeoutNanos || failure != null
                            || Thread.currentThread().isInterrupted()) {
                        return done.getAsBoolean();
                    }
                }
            } finally {
                drivers.decrementAndGet();
            }
        }
        // Parking: the engine thread takes over progress; whoever makes done true unparks us. The engine need
        // not be woken when every rank can ring it: what we wait for either arrives with a ring, or needs a
        // request that keeps the engine polling (and whoever submitted that request woke it).
        parkedWaiters.incrementAndGet();
        try {
            if (!doorbells.coversAll()) {
                wakeUp();
            }
            while (!done.getAsBoolean()) {
                long left = timeoutNanos - (System.nanoTime() - start);
                if (left <= 0 || Thread.currentThread().isInterrupted()) {
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
     * {@link #await} for a condition that needs this process's sends to complete, such as a comm's close
     * flushing its messages: meanwhile the engine polls for eager sends with its short parks, as for any other
     * request, instead of leaving them to its next wake-up. Any thread.
     */
    public boolean awaitSends(BooleanSupplier done, long timeoutNanos) {
        sendWaiters.incrementAndGet();
        try {
            wakeUp(); // it may be in one of its longer parks with only eager sends outstanding
            return await(done, timeoutNanos);
        } finally {
            sendWaiters.decrementAndGet();
        }
    }

    /** Whether the calling thread drives progress itself when it waits or submits (caller-runs). */
    private boolean callerRuns() {
        return options.callerSpinNanos() > 0 && !Thread.currentThread().isVirtual();
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
        long bytes = buf.byteSize();
        int rc = mpi.isend(buf, Math.toIntExact(bytes), byteType, dest, tag, comm, requests.nextSlot());
        if (rc == Mpi.SUCCESS) {
            if (bytes > options.eagerBytes()) {
                requests.add(completion, true, false);
            } else {
                requests.addEagerSend(completion);
            }
            stats.sent(bytes);
            doorbells.announce(dest);
        }
        return rc;
    }

    /**
     * Makes {@code call} (any non-blocking MPI call, e.g. MPI_Ibarrier) and tracks its request until it
     * completes; returns the MPI error code. Only while driving.
     */
    public int track(RequestCall call, Completion completion) {
        int rc = call.call(requests.nextSlot());
        if (rc == Mpi.SUCCESS) {
            requests.add(completion, false, false);
        }
        return rc;
    }

    /** One pass; returns how much work it found. Only with the lock held. */
    int doWork() {
        if (failure != null) {
            return 0;
        }
        try {
            stats.pass();
            int work = 0;
            work += postQueued();
            Outbound later;
            while ((later = lazy.poll()) != null) {
                later.post(this); // not counted as work: it must not keep an idle engine from its long sleeps
            }
            work += requests.testSome();
            int received = matcher.probe();
            if (longSleepTimedOut) {
                longSleepTimedOut = false;
                if (received > 0) {
                    stats.unannounced();
                }
            }
            work += received;
            work += router.deliver();
            if (work > 0) {
                lastActiveNanos = System.nanoTime();
            }
            return work;
        } catch (RuntimeException | Error e) {
            // An MPI error here (or a bug in a completion) leaves MPI state unknown: fail loudly, not hang. An
            // Error too, such as an OutOfMemoryError allocating a received frame: a message may be matched and
            // not received, and every comm of the rank waits on this thread.
            fail(e);
            return 1;
        }
    }

    /** Posts every queued send, in order; returns how many. Only while driving. */
    private int postQueued() {
        int posted = 0;
        Queued out;
        while ((out = queue.poll()) != null) {
            // Read after the poll, so never before the submitter's stamp (one clock read per posted message).
            stats.waitedInQueue(System.nanoTime() - out.submittedAt());
            out.work().post(this);
            posted++;
        }
        return posted;
    }

    /** Whether the calling thread drives the engine now (holds its lock): it must not wait for the engine. */
    public boolean isDriving() {
        return lock.isHeldByCurrentThread();
    }

    /**
     * Tests the outstanding requests and runs the completions of those done, for a thread that drives the engine
     * and must see its sends complete before it can go on; returns how many completed. Only while driving.
     */
    public int testRequests() {
        return requests.testSome();
    }

    /** Whether the engine still runs passes (not closed, not failed). Any thread. */
    public boolean isRunning() {
        return running && failure == null;
    }

    private void fail(Throwable thrown) {
        RuntimeException cause = thrown instanceof RuntimeException e ? e
                : new IllegalStateException("the MPI progress engine failed: " + thrown, thrown);
        failure = cause;
        // Comms close first: a receive completion that fails below then cannot hand a reader a message that
        // looks complete in the window before its comm is closed.
        router.onEngineFailure(cause);
        requests.failAll(cause instanceof MpiException m && m.errorCode() > 0 ? m.errorCode() : -1);
        router.deliver(); // push-mode receivers learn that their comms ended: no pass will run again
    }

    /** The engine thread: passes and idling until {@link #close}; whatever escapes fails the engine loudly. */
    private void run() {
        try {
            runPasses();
        } catch (RuntimeException | Error e) {
            if (failure == null) {
                fail(e);
            }
        }
    }

    private void runPasses() {
        BackoffIdler idler = new BackoffIdler(options, this::sleep);
        while (running) {
            if (drivers.get() > 0) {
                // A waiting thread drives progress itself: stay out of its way (one busy thread per core).
                stats.idleFrom(System.nanoTime());
                idler.parkAtCap(this);
                stats.idleUntil(System.nanoTime());
                idler.rearm();
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
                stats.idleUntil(System.nanoTime());
                idler.reset();
                adaptIdleYield(idler);
                longSleepNanos = options.doorbellParkNanos();
                eagerSendParkNanos = EAGER_SEND_PARK_NANOS;
                if (!idler.parksAtOnce() || !doorbells.enabled()) {
                    continue;
                }
                // An engine that parks at once (oversubscribed node) goes straight to its doorbell sleep: the sleep
                // polls once more after marking the engine asleep, so a pass here would only repeat that poll
                // (two MPI_Improbe, each a full Open MPI progress call).
            }
            stats.idleFrom(System.nanoTime());
            if (requests.busy() > 0) {
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

    /**
     * The engine thread's park when idle. With doorbells: mark this rank asleep, poll once more (a message
     * posted before the mark was visible is found now), then sleep until a sender or a local submitter rings,
     * or the time is up. When every rank can ring us, no request of ours is outstanding and every message
     * announced to us has arrived ({@link Doorbells#allAnnouncedArrived}), nothing can arrive unannounced, so
     * once settled ({@link EngineOptions#settleNanos()}) the sleep is long: {@link EngineOptions#doorbellParkNanos()},
     * doubling while it runs out quietly, up to a second. If the only requests outstanding are eager sends and
     * nobody waits for them ({@link #awaitSends}), it parks 1 ms, doubling up to {@code doorbellParkNanos};
     * otherwise it is the backoff's short park.
     * A shorter cap (10 ms) was tried: its timed wake-ups were most of an engine's CPU on a busy small node.
     * Returns true if the last poll found work or a ring ended the sleep (the backoff then starts over).
     */
    private boolean sleep(Object blocker, long nanos) {
        if (!doorbells.enabled()) {
            LockSupport.parkNanos(blocker, nanos);
            return false;
        }
        doorbells.prepareSleep();
        int work = 0;
        boolean quiet = false;
        boolean onlyEagerSends = false;
        if (lock.tryLock()) {
            try {
                work = doWork();
                // Nothing outstanding, and every message announced to us has arrived: one announced and not yet
                // received is on its way (MPI has not shown it yet), so the engine keeps to short parks.
                boolean inbound = !router.anyPaused() && doorbells.allAnnouncedArrived();
                quiet = requests.isEmpty() && inbound;
                onlyEagerSends = inbound && requests.onlyEagerSends() && sendWaiters.get() == 0;
            } finally {
                lock.unlock();
            }
        }
        if (work > 0 || !queue.isEmpty() || !running) {
            doorbells.cancelSleep();
            return work > 0;
        }
        // Settled: no work, send or ring for options.settleNanos(). Until then MPI may need a few more progress
        // calls on either side to show what was just sent or rung for (MPICH queues an eager message
        // internally when the peer's shared-memory cells are full), so the engine keeps to short parks.
        boolean settled = System.nanoTime() - lastActiveNanos >= options.settleNanos();
        long sleepNanos = nanos;
        boolean longSleep = quiet && settled && doorbells.coversAll();
        if (longSleep) {
            sleepNanos = Math.max(nanos, longSleepNanos);
        } else if (onlyEagerSends && settled && doorbells.coversAll()) {
            // What is outstanding needs no hurry: the data is on its way, and only buffers wait for the
            // completion. Parks of 1 ms doubling up to the long sleep, not the backoff's microseconds (a ring
            // still wakes the engine at once; a sender that MPI left with a queued eager message, as MPICH does
            // when the peer's cells are full, is polled within 1 ms at first).
            sleepNanos = Math.max(nanos, eagerSendParkNanos);
            eagerSendParkNanos = Math.min(eagerSendParkNanos * 2, Math.max(EAGER_SEND_PARK_NANOS, options.doorbellParkNanos()));
        }
        boolean rung = doorbells.sleep(sleepNanos);
        longSleepTimedOut = !rung && longSleep && sleepNanos > options.maxParkNanos();
        stats.sleptOnDoorbell(rung);
        if (rung) {
            lastActiveNanos = System.nanoTime(); // what rang may need a few polls to show: back off from the start
            longSleepNanos = options.doorbellParkNanos();
            eagerSendParkNanos = EAGER_SEND_PARK_NANOS;
        } else if (longSleepTimedOut) {
            longSleepNanos = Math.min(longSleepNanos * 2, Math.max(options.doorbellParkNanos(), LONGEST_DOORBELL_SLEEP_NANOS));
        }
        return rung;
    }

    /**
     * From now on the engine turns Open MPI's idle yield ({@link Mpi#openMpiIdleYield}) on while messages come
     * in quick succession and off while they come rarely. Measured on 5 ranks / 2 cores: on, the 10000² seed
     * workload with 500² chunks (about 1,000 tasks a run) took 0.27-0.28 s against 0.34-0.43 s off; off, the
     * 20000² one (25 blocks) took 0.61-0.65 s against 0.66 s on. Call before {@link #start()}.
     */
    public void adaptOpenMpiIdleYield() {
        adaptiveIdleYield = mpi.openMpiIdleYield(false);
        idleYieldOn = false;
    }

    private void adaptIdleYield(BackoffIdler idler) {
        if (adaptiveIdleYield) {
            boolean frequent = idler.messagesFrequent();
            if (frequent != idleYieldOn) {
                idleYieldOn = frequent;
                mpi.openMpiIdleYield(frequent);
            }
        }
    }

    /** Stops the engine thread (bounded wait). Does not finalize MPI. Any thread but the engine's. */
    @Override
    public void close() {
        TransportGauges.unregister(GAUGES, stats);
        running = false;
        LockSupport.unpark(thread);
        doorbells.ringSelf();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        router.deliver(); // push-mode receivers of comms that ended with the engine learn it now
    }

    /** A submitted {@link Outbound} and when it was submitted (the queue-wait gauges measure from then to its post). */
    private record Queued(Outbound work, long submittedAt) {
    }
}
