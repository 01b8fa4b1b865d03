package io.dask4j.launcher;

import io.dask4j.comm.Address;
import io.dask4j.runtime.client.Client;

import java.util.List;
import java.util.Set;

/**
 * A dask4j cluster over the ranks of an MPI job, in dask-mpi's style: call {@link #initialize} first in
 * {@code main()} and start the program under {@code mpirun}. Rank 0 runs the scheduler, ranks 2 and up
 * run workers (neither ever returns from {@code initialize}), and rank 1 returns with a connected {@link
 * Client} and runs the rest of {@code main()} (with {@link MpiClusterOptions#withClientRank withClientRank(0)}
 * the client runs on the scheduler's rank instead, as dask-mpi's {@code execute()} allows, and ranks 1 and
 * up run workers):
 * <pre>{@code
 * public static void main(String[] args) {
 *     Client client = MpiCluster.initialize();               // only rank 1 gets past this line
 *     System.out.println(client.submit(() -> 6 * 7).result());
 * }                                                          // main returns: every rank shuts down, exit 0
 * }</pre>
 * Run it with the java of a JDK 25 (a plain {@code java} is whichever the PATH finds) and the class path in
 * {@code CLASSPATH}, as docs/mpi-and-slurm.md does:
 * <pre>{@code
 * CLASSPATH="$(./dask4j classpath):app.jar" mpirun -x CLASSPATH -np 4 \
 *     "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED --add-opens java.base/java.lang.invoke=ALL-UNNAMED \
 *     Main
 * }</pre>
 * Not {@code -cp} or {@code --class-path} after other options: Open MPI's mpirun rewrites the argument after the
 * first java argument containing "cp", so a class path through, say, {@code /home/cpaul/} would mangle the main
 * class (a line that starts with {@code -cp CP --class-path CP}, as dask4j's own jobs do, has only the first,
 * ignored copy rewritten; see {@code JvmFlags.classPathFirst}). MPICH's ranks inherit {@code CLASSPATH} without
 * {@code -x}.
 *
 * <p><b>Shutdown.</b> When {@code main()} returns (or {@link #shutdown()} is called) the client closes,
 * the scheduler rank tells every rank to stop, all ranks meet in a final barrier, finalize MPI and exit 0.
 * If {@code main()} throws, the error is printed once, by the client rank, and the job exits 1. A worker
 * rank that dies ends the job (MPI_Abort) with a message naming it; too few ranks for the layout ends
 * every rank with exit code 2 and one message. See {@link MpiClusterOptions} for the protocol (auto: mpi
 * within a host and tcp between hosts; mpi; or tcp), threads, memory, ranks and logs ({@code logs/rank-<r>.log}
 * per rank).
 *
 * <p><b>Threads.</b> {@link #initialize} and {@link #execute} once per process, from the main thread;
 * the other methods from any thread once it returned.
 */
public final class MpiCluster {
    private static ClientRank current;

    private MpiCluster() {
    }

    /** {@link #initialize(MpiClusterOptions)} with {@link MpiClusterOptions#defaults()}. */
    public static Client initialize() {
        return initialize(MpiClusterOptions.defaults());
    }

    /**
     * Starts this rank's part of the cluster. Returns only on the client rank, with a connected client and
     * every worker registered; on the other ranks it serves until the client is done and then exits the
     * process (status 0 after a clean shutdown).
     *
     * @throws IllegalStateException if called twice in one process
     */
    public static synchronized Client initialize(MpiClusterOptions options) {
        if (current != null) {
            throw new IllegalStateException("MpiCluster.initialize was already called in this process");
        }
        if (options.clientRank() == RankLayout.NONE || options.schedulerRank() == RankLayout.NONE) {
            throw new IllegalArgumentException("MpiCluster.initialize needs a scheduler rank and a client rank"
                    + " (dask4j mpi runs clusters without a client)");
        }
        ClusterRank rank = startOrExit(options);
        if (!rank.isClient()) {
            exit(ServerRank.serve(rank));
        }
        current = new ClientRank(rank);
        current.watch(Thread.currentThread());
        return rank.client;
    }

    /**
     * Runs {@code function} as the client of a cluster started with {@code options} and returns its result
     * on the client rank, after shutting the cluster down; the other ranks serve and exit without returning.
     * An exception of {@code function} is thrown on the client rank (after the shutdown) and makes the job
     * exit 1 if main() lets it through.
     */
    public static <T> T execute(MpiClusterOptions options, ClientFunction<T> function) throws Exception {
        Client client = initialize(options);
        try {
            T result = function.apply(client);
            shutdown();
            return result;
        } catch (Exception | Error e) {
            current().shutdown(1);
            throw e;
        }
    }

    /** {@link #execute(MpiClusterOptions, ClientFunction)} with default options. */
    public static <T> T execute(ClientFunction<T> function) throws Exception {
        return execute(MpiClusterOptions.defaults(), function);
    }

    /**
     * Runs {@code dask4j mpi}'s cluster: a scheduler on {@code options.schedulerRank()} (none for
     * {@code --no-scheduler}: the workers join the scheduler named by the scheduler file) and a worker on
     * every other rank, serving clients from outside the job until a signal ends it. Returns the exit code.
     */
    public static int serve(MpiClusterOptions options) {
        MpiClusterOptions served = options.withClientRank(RankLayout.NONE).withTcpListener(true, options.schedulerPort());
        ClusterRank rank = startOrExit(served);
        return ServerRank.serve(rank);
    }

    /** The client of this process (the client rank, after {@link #initialize}). */
    public static Client client() {
        return current().cluster().client;
    }

    /**
     * Shuts the whole cluster down now (the client closes, every rank stops, MPI is finalized); when main()
     * returns afterwards the process exits 0. Idempotent. Client rank only.
     */
    public static void shutdown() {
        current().shutdown(0);
    }

    /** This process's MPI rank. */
    public static int rank() {
        return current().cluster().rank;
    }

    /** The number of ranks of the job. */
    public static int size() {
        return current().cluster().layout.size();
    }

    /** The ranks running workers. */
    public static List<Integer> workerRanks() {
        return current().cluster().layout.workerRanks();
    }

    /** The roles of this rank. */
    public static Set<Role> roles() {
        ClusterRank rank = current().cluster();
        return rank.layout.roles(rank.rank);
    }

    /** Where the scheduler listens (its mpi:// or tcp:// address first, then a tcp:// one, or tls:// with TLS options, for outside clients). */
    public static List<Address> schedulerAddresses() {
        return current().cluster().schedulerAddresses;
    }

    /** The random id of this run, the same on every rank and in the scheduler file. */
    public static String runId() {
        return current().cluster().runId;
    }

    private static synchronized ClientRank current() {
        if (current == null) {
            throw new IllegalStateException("MpiCluster.initialize has not returned in this process"
                    + " (only the client rank returns from it)");
        }
        return current;
    }

    private static ClusterRank startOrExit(MpiClusterOptions options) {
        try {
            return ClusterRank.start(options);
        } catch (RankExit e) {
            // To the rank's file only: one rank (show) prints it, so that the console shows it once.
            org.slf4j.LoggerFactory.getLogger(MpiCluster.class).info("exiting with code {}: {}", e.code(), e.getMessage(), e.getCause());
            if (e.show()) {
                System.err.println("dask4j: " + e.getMessage());
            }
            io.dask4j.mpi.MpiRuntime mpi = io.dask4j.mpi.MpiRuntime.current();
            if (mpi != null) {
                mpi.close();
            }
            exit(e.code());
            throw e;
        } catch (RuntimeException e) {
            // Failed on this rank only (e.g. an MPI error in a start-up collective): others may be waiting for
            // it, so end the whole job rather than leave them hanging.
            io.dask4j.mpi.MpiRuntime mpi = io.dask4j.mpi.MpiRuntime.current();
            if (mpi == null) {
                System.err.println("dask4j: start-up failed: " + e);
                exit(1);
            }
            JobAbort.abort(mpi, mpi.rank(), "rank " + mpi.rank() + ": start-up failed: " + e, e);
            throw e;
        }
    }

    private static void exit(int code) {
        RankLogging.stop();
        System.exit(code);
    }
}
