package io.dask4j.mpi;

import io.dask4j.comm.config.ConfigSource;
import io.dask4j.comm.config.UnknownSettings;
import io.dask4j.mpi.binding.Mpi;
import io.dask4j.mpi.binding.MpiException;
import io.dask4j.mpi.binding.ThreadLevel;
import io.dask4j.mpi.comm.MpiTransport;
import io.dask4j.mpi.comm.MpiTransportOptions;
import io.dask4j.mpi.engine.Doorbells;
import io.dask4j.mpi.engine.EngineOptions;
import io.dask4j.mpi.engine.ProgressEngine;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * MPI in this process: initializes MPI once (thread level SERIALIZED or better: every call goes through
 * the progress engine's lock), duplicates MPI_COMM_WORLD into the job communicator with errors returned
 * (never aborting), starts the progress engine and the {@code mpi://} transport, and finalizes at
 * {@link #close()} or at JVM exit.
 *
 * <p>Typical use by a launcher:
 * <pre>{@code
 *   MpiRuntime mpi = MpiRuntime.start(options);   // MpiOptions; start() reads this process's settings
 *   int rank = mpi.rank(), size = mpi.size();
 *   Comms.listen(Address.mpi(rank), ...);           // the "mpi" backend uses this runtime
 *   ...
 *   mpi.close();                                    // stops the engine, MPI_Finalize (also at exit)
 * }</pre>
 *
 * <p><b>Exit.</b> This runtime is the one owner of MPI_Finalize at JVM exit: its shutdown hook first runs the
 * tasks registered with {@link #atExit} (a launcher telling its peers that this rank goes away, roles
 * closing their comms), in order, while the engine and the comms still work, then shuts the transport
 * down and finalizes. Code that needs MPI at exit must register there rather than add a JVM shutdown hook
 * of its own: the JVM runs hooks concurrently, so such a hook would race MPI_Finalize. When a signal stops the
 * JVM ({@link ExitSignal}: the launcher is ending the job, perhaps because a rank died) the barrier and
 * MPI_Finalize are bounded to 2 s and 5 s instead of 10 s and 30 s: a
 * launcher kills what outlives its grace period (Slurm's KillWait, 30 s by default), and with a rank gone the
 * barrier cannot complete and MPI_Finalize may not return (MPICH ranks outlived Slurm's 30 s that way). Under
 * MPICH, an MPI_Finalize still running {@link #FINALIZE_STALL} after every rank met right before it is freed by
 * shutting down the TCP connections MPI opened in this process ({@link MpiConnections}).
 *
 * <p>Thread-safe; one instance per process. Do not call MPI through {@link #mpi()} directly once started,
 * except inside {@link ProgressEngine#exclusive} (as {@link #barrier()} does).
 */
public final class MpiRuntime implements AutoCloseable {

    /** Launcher environment variables that tell how many ranks were started. */
    static final List<String> LAUNCHER_SIZE_VARIABLES = List.of("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MPI_LOCALNRANKS");

    /** How long a rank stopped by a signal waits at the exit barrier for the other ranks. */
    static final Duration SIGNAL_BARRIER = Duration.ofSeconds(2);
    /** How long a rank stopped by a signal waits for MPI_Finalize before exiting without it. */
    static final Duration SIGNAL_FINALIZE = Duration.ofSeconds(5);
    private static final Duration BARRIER = Duration.ofSeconds(10);
    private static final Duration FINALIZE = Duration.ofSeconds(30);
    /**
     * How long MPICH's MPI_Finalize may run, once every rank has met right before it, before this rank ends MPI's
     * TCP connections to free it ({@link MpiConnections}). A finalize that returns at all took 0.02-0.11 s in a C
     * program on the virtual nodes, and MPI's connections are no longer needed by then (the ranks have met).
     */
    static final Duration FINALIZE_STALL = Duration.ofSeconds(3);

    private static MpiRuntime current;

    private final Mpi mpi;
    private final ThreadLevel threadLevel;
    private final long comm;
    private final int rank;
    private final int size;
    private final ProgressEngine engine;
    private final Doorbells doorbells;
    private final MpiTransport transport;
    private final Thread shutdownHook;
    private final List<Runnable> exitTasks = new CopyOnWriteArrayList<>();
    /** Counted down when {@link #finish} has finalized MPI, so that a second caller waits for the first. */
    private final CountDownLatch finished = new CountDownLatch(1);
    /** The sockets open before MPI_Init: those opened since and still open at a stalled finalize are MPI's. */
    private final MpiConnections beforeInit;
    private boolean closed;

    private MpiRuntime(Mpi mpi, ThreadLevel threadLevel, long comm, int rank, int size, EngineOptions options,
                       MpiTransportOptions transportOptions, Doorbells doorbells, MpiConnections beforeInit) {
        this.mpi = mpi;
        this.beforeInit = beforeInit;
        this.threadLevel = threadLevel;
        this.comm = comm;
        this.rank = rank;
        this.size = size;
        this.transport = new MpiTransport(rank, size, transportOptions);
        this.doorbells = doorbells;
        this.engine = new ProgressEngine(mpi, comm, options, transport, doorbells);
        this.transport.attach(engine);
        this.shutdownHook = new Thread(this::onJvmExit, "dask4j-mpi-finalize");
    }

    /**
     * Starts MPI with the options this process's settings give ({@link MpiOptions#fromSettings} of its system
     * properties and environment), or returns the running instance: for an entry point with no options of its own
     * (the {@code mpi} backend started by a first {@code mpi://} connect, a test's rank).
     */
    public static MpiRuntime start() {
        return start(MpiOptions.fromSettings(ConfigSource.system()));
    }

    /**
     * Initializes MPI with {@code options} and starts the engine, or returns the running instance (whose options win).
     *
     * @throws MpiException when no MPI library loads, MPI_Init fails, the thread level is too low, or the
     *     library is not the launcher's (a world of 1 rank when the launcher started more)
     */
    public static synchronized MpiRuntime start(MpiOptions options) {
        if (current != null && !current.closed) {
            return current;
        }
        if (current != null) {
            throw new MpiException("MPI was finalized in this process; it cannot be started again");
        }
        UnknownSettings.warnOnce();
        Mpi mpi = Mpi.load(options.library());
        MpiConnections beforeInit = MpiConnections.snapshot();
        ThreadLevel level = mpi.initialized() ? mpi.queryThread()
                : mpi.initThread(ThreadLevel.SERIALIZED);
        if (level.compareTo(ThreadLevel.SERIALIZED) < 0) {
            throw new MpiException(mpi.library().name() + " provides only MPI_THREAD_" + level
                    + "; dask4j needs MPI_THREAD_SERIALIZED or better");
        }
        long world = mpi.abi().commWorld();
        mpi.setErrorsReturn(world);
        int worldSize = mpi.commSize(world);
        checkLauncher(mpi, worldSize, System.getenv());
        long comm = mpi.commDup(world);
        mpi.setErrorsReturn(comm);
        int rank = mpi.commRank(comm);
        Doorbells doorbells = Doorbells.setUp(mpi, comm, rank, worldSize, options.doorbells());
        MpiRuntime runtime = new MpiRuntime(mpi, level, comm, rank, worldSize, options.engine(),
                options.transportFor(mpi.abi()), doorbells, beforeInit);
        // Open MPI yields in idle progress calls only on an oversubscribed node; there the engine switches it by the
        // message rate (ProgressEngine.adaptOpenMpiIdleYield), unless -Ddask4j.mpi.openMpiIdleYield=true|false.
        switch (options.openMpiIdleYield()) {
            case ON -> mpi.openMpiIdleYield(true);
            case OFF -> mpi.openMpiIdleYield(false);
            case ADAPTIVE -> {
                if (EngineOptions.nodeOversubscribed()) {
                    runtime.engine.adaptOpenMpiIdleYield();
                }
            }
        }
        runtime.engine.start();
        Runtime.getRuntime().addShutdownHook(runtime.shutdownHook);
        current = runtime;
        return runtime;
    }

    /** The running instance, or null if MPI has not been started in this process. */
    public static synchronized MpiRuntime current() {
        return current != null && !current.closed ? current : null;
    }

    /** Fails when the world has 1 rank but the launcher's environment says it started more. */
    static void checkLauncher(Mpi mpi, int worldSize, Map<String, String> env) {
        if (worldSize != 1) {
            return;
        }
        for (String variable : LAUNCHER_SIZE_VARIABLES) {
            String value = env.get(variable);
            if (value != null && value.strip().matches("\\d+") && Integer.parseInt(value.strip()) > 1) {
                throw new MpiException("MPI world has 1 rank but the launcher started " + value.strip() + " ("
                        + variable + "): dask4j loaded " + mpi.library().name() + " (" + mpi.abi().family()
                        + "), a different MPI than the launcher's. Start the job with the mpirun of that MPI, or "
                        + "name the launcher's library with DASK4J_MPI_LIB (e.g. libmpi.so.40 for Open MPI, "
                        + "libmpich.so.12 for MPICH).");
            }
        }
    }

    public Mpi mpi() {
        return mpi;
    }

    public ThreadLevel threadLevel() {
        return threadLevel;
    }

    /** The job communicator handle (a dup of MPI_COMM_WORLD). */
    public long comm() {
        return comm;
    }

    public int rank() {
        return rank;
    }

    public int size() {
        return size;
    }

    public ProgressEngine engine() {
        return engine;
    }

    public MpiTransport transport() {
        return transport;
    }

    /** This rank's doorbells ({@link Doorbells#NONE} when it has none): diagnostics and tests read them. */
    public Doorbells doorbells() {
        return doorbells;
    }

    /**
     * A barrier over the job communicator (MPI_Ibarrier completed through the engine, so that comms keep
     * being served while this rank waits for the others). Any thread; bounded by {@code timeout}.
     *
     * @throws MpiException if it fails or the other ranks do not arrive in time
     */
    public void barrier(Duration timeout) {
        AtomicInteger result = new AtomicInteger(Integer.MIN_VALUE);
        Thread caller = Thread.currentThread();
        engine.submit(e -> {
            int rc = e.track(slot -> mpi.ibarrier(comm, slot), code -> {
                result.set(code);
                LockSupport.unpark(caller);
            });
            if (rc != Mpi.SUCCESS) {
                result.set(rc);
                LockSupport.unpark(caller);
            }
        });
        if (!engine.await(() -> result.get() != Integer.MIN_VALUE, timeout.toNanos())) {
            throw new MpiException("barrier: the other ranks did not arrive within " + timeout);
        }
        if (result.get() != Mpi.SUCCESS) {
            throw new MpiException(result.get(), "MPI_Ibarrier failed: " + mpi.errorString(result.get()));
        }
    }

    /** {@link #barrier(Duration)} waiting up to 10 minutes. */
    public void barrier() {
        barrier(Duration.ofMinutes(10));
    }

    /**
     * Runs {@code task} when the JVM exits (System.exit, the end of the last non-daemon thread, a signal)
     * before MPI is finalized, on this runtime's shutdown hook; tasks run one after the other in the order
     * registered and should be bounded (a few seconds). Not run if {@link #close()} was called before the
     * JVM began to exit. Any thread.
     */
    public void atExit(Runnable task) {
        exitTasks.add(task);
    }

    /** Kills the whole job (MPI_Abort) when it cannot go on. */
    public void abortJob(int errorCode) {
        mpi.abort(comm, errorCode);
    }

    /**
     * Aborts every mpi comm of this process, meets the other ranks at a barrier (bounded to 10 s), stops the
     * engine and calls MPI_Finalize (which waits for the other ranks to finalize too; bounded to 30 s).
     * Collective like MPI_Finalize: every rank must call it (or exit). Idempotent; also run at JVM exit.
     */
    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException alreadyShuttingDown) {
            // called from the hook itself or during exit: nothing to remove
        }
        finish(false);
    }

    private void onJvmExit() {
        for (Runnable task : exitTasks) {
            try {
                task.run();
            } catch (RuntimeException e) {
                System.err.println("dask4j: an MPI exit task failed: " + e);
            }
        }
        finish(ExitSignal.current().isPresent());
    }

    private void finish(boolean stoppedBySignal) {
        boolean first;
        synchronized (MpiRuntime.class) {
            first = !closed;
            closed = true;
        }
        if (!first) {
            awaitFinished();
            return;
        }
        try {
            shutDownAndFinalize(stoppedBySignal ? SIGNAL_BARRIER : BARRIER, stoppedBySignal ? SIGNAL_FINALIZE : FINALIZE);
        } finally {
            finished.countDown();
        }
    }

    /** Another thread is finalizing (say main calls close() while the JVM exits): return once it is done. */
    private void awaitFinished() {
        try {
            finished.await(45, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void shutDownAndFinalize(Duration barrierBound, Duration finalizeBound) {
        transport.shutdown("MPI is shutting down");
        // MPI_Finalize is collective anyway: meet the other ranks first while the engine still drains their
        // last CLOSE/ABORT messages, so that none is left unmatched (UCX warns about those).
        boolean everyRankHere = false;
        try {
            if (engine.failure() == null) {
                barrier(barrierBound);
                everyRankHere = true;
            }
            engine.await(() -> false, TimeUnit.MILLISECONDS.toNanos(2));
        } catch (MpiException | IllegalStateException e) {
            // another rank is gone or late: finalize anyway
        }
        boolean meetAgain = everyRankHere;
        engine.close();
        // Under the engine's lock: if the engine thread outlived close()'s wait, or a writer still holds the lock
        // for a send, MPI_Finalize waits for it instead of racing it (MPI_THREAD_SERIALIZED); after close() no
        // writer takes the lock for MPI any more (tryPost, tryDrive). A finalize that cannot get the lock within
        // the wait below is skipped: the process exits without it, which beats undefined behaviour.
        CountDownLatch finalizing = new CountDownLatch(1);
        Thread finalizer = Thread.ofPlatform().daemon(true).name("dask4j-mpi-finalize").start(() -> engine.exclusive(() -> {
            if (!mpi.finalized()) {
                if (meetAgain) {
                    // Once more, blocking, right before MPI_Finalize: the ranks enter it together (two ranks on two
                    // virtual nodes waited out the bound below in 5 of 8 jobs without it, in none of 11 with it).
                    mpi.barrier(comm);
                }
                finalizing.countDown();
                mpi.finalizeMpi();
            }
            return null;
        }));
        long deadline = System.nanoTime() + finalizeBound.toNanos();
        try {
            // Only when the launcher's PMI connection is known by its descriptor (PMI_FD: hydra, Slurm's pmi2): one
            // made through PMI_PORT during MPI_Init would look like MPI's own and must not be shut down.
            String pmiFd = System.getenv("PMI_FD");
            boolean mpich = "mpich".equals(mpi.abi().family());
            if (meetAgain && pmiFd != null && mpich && stalled(finalizer, finalizing, finalizeBound)) {
                // MPICH 4.0's UCX finalize closes its endpoints (progressing UCX), then waits in a PMI barrier (not
                // progressing it): over UCX's tcp transport a rank's close sometimes needs an answer from a rank
                // already in that barrier, and both wait for good. Ending this rank's MPI connections fails its
                // close at once, as the peer's exit would, and every rank then finalizes (docs/multi-node.md).
                int cut = beforeInit.shutDownOpenedSince(pmiFd);
                System.err.println("dask4j: rank " + rank + ": MPI_Finalize had not returned "
                        + FINALIZE_STALL.toSeconds() + " s after every rank met; ended " + cut
                        + " MPI connections to free it (MPICH over UCX's tcp)");
            }
            finalizer.join(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Whether the finalizer entered MPI_Finalize within {@code bound} and was still in it {@link #FINALIZE_STALL} later. */
    private static boolean stalled(Thread finalizer, CountDownLatch finalizing, Duration bound)
            throws InterruptedException {
        if (!finalizing.await(bound.toNanos(), TimeUnit.NANOSECONDS)) {
            return false;
        }
        finalizer.join(FINALIZE_STALL);
        return finalizer.isAlive();
    }
}
