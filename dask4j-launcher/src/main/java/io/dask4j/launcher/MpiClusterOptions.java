package io.dask4j.launcher;

import io.dask4j.comm.config.ConfigSource;
import io.dask4j.comm.config.Settings;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.serialize.ClassAllowList;
import io.dask4j.mpi.MpiOptions;
import io.dask4j.runtime.dashboard.DashboardConfig;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * How {@link MpiCluster} lays out and runs a cluster over the ranks of an MPI job. Immutable; start from
 * {@link #defaults()} and change fields with the {@code with*} methods:
 * <pre>{@code
 * MpiCluster.initialize(MpiClusterOptions.defaults().withThreads(2).withMemoryLimit(4L << 30));
 * }</pre>
 *
 * @param protocol {@link MpiProtocol#AUTO} (default: mpi between the ranks of a host, tcp between hosts, which on
 *     one host is all mpi), {@link MpiProtocol#MPI} (mpi between every pair of ranks) or {@link MpiProtocol#TCP}
 *     (MPI only for start-up)
 * @param threads task threads per worker (default 1, as dask-mpi)
 * @param memoryLimit bytes per worker before spilling to disk; 0 for no limit (default)
 * @param localDirectory where workers put spill files; null for the temporary directory
 * @param schedulerRank the rank running the scheduler (default 0; {@link RankLayout#NONE} for none)
 * @param clientRank the rank returning from {@code initialize} to run the client (default 1;
 *     {@link RankLayout#NONE} for none, as {@code dask4j mpi}). It may be the scheduler's rank, as dask-mpi's
 *     {@code execute()} allows: the scheduler then runs in the user's process and the client reaches it
 *     in-process, so the job needs one process fewer (as many as a tcp local cluster)
 * @param exclusiveWorkers true (default): no worker on the scheduler and client ranks
 * @param workerNamePrefix workers are named {@code <prefix>-<rank>} (default {@code worker})
 * @param tcpListener whether the scheduler also listens on TCP for clients outside the job (always on for
 *     {@code dask4j mpi}); workers then listen on TCP too, so that such clients can fetch results
 * @param schedulerPort the scheduler's TCP port; 0 picks a free one
 * @param host the host TCP listeners bind and advertise; null picks 127.0.0.1 when every rank runs on
 *     this host, else this host's address
 * @param schedulerFile where the scheduler writes its addresses once listening (null for none); with
 *     {@code schedulerRank} NONE, where the workers read the address of a running scheduler
 * @param logDirectory where each rank writes {@code rank-<r>.log} (default {@code logs}, or
 *     {@code DASK4J_LOG_DIR}); null to log to the console only
 * @param startTimeout how long start-up (scheduler up, every worker registered) may take
 * @param comm comm options (secret from {@code DASK4J_SECRET}, timeouts; TLS from {@code DASK4J_TLS_*}, with which
 *     every socket listener of the job, for outside clients and between hosts, is {@code tls://} instead of
 *     {@code tcp://})
 * @param dashboard the web dashboard on the scheduler rank (default on, 127.0.0.1:8787, a free port if
 *     that is taken; {@link DashboardConfig#disabled()} for none)
 * @param allowedClasses the classes workers and the client rank build from frames (default {@link
 *     ClassAllowList#defaults()}: every rank runs the same main class, whose package it allows)
 * @param mpi how each rank starts MPI: the library, the progress engine's and the transport's options (default
 *     {@link MpiOptions#fromSettings}: the {@code dask4j.mpi.*} system properties and {@code DASK4J_MPI_LIB})
 */
public record MpiClusterOptions(MpiProtocol protocol, int threads, long memoryLimit, Path localDirectory,
                                int schedulerRank, int clientRank, boolean exclusiveWorkers, String workerNamePrefix,
                                boolean tcpListener, int schedulerPort, String host, Path schedulerFile,
                                Path logDirectory, Duration startTimeout, CommOptions comm, DashboardConfig dashboard,
                                ClassAllowList allowedClasses, MpiOptions mpi) {

    public MpiClusterOptions {
        Objects.requireNonNull(protocol, "protocol");
        Objects.requireNonNull(workerNamePrefix, "workerNamePrefix");
        Objects.requireNonNull(startTimeout, "startTimeout");
        Objects.requireNonNull(comm, "comm");
        Objects.requireNonNull(dashboard, "dashboard");
        Objects.requireNonNull(allowedClasses, "allowedClasses");
        Objects.requireNonNull(mpi, "mpi");
        if (threads < 1) {
            throw new IllegalArgumentException("threads per worker must be >= 1: " + threads);
        }
        if (memoryLimit < 0) {
            throw new IllegalArgumentException("memory limit must be >= 0 (0 = none): " + memoryLimit);
        }
        if (schedulerPort < 0 || schedulerPort > 65535) {
            throw new IllegalArgumentException("scheduler port must be 0-65535: " + schedulerPort);
        }
    }

    /**
     * dask-mpi's layout: scheduler on rank 0, client on rank 1, exclusive workers on the rest; the auto protocol (mpi
     * within a host, tcp between hosts).
     */
    public static MpiClusterOptions defaults() {
        return defaults(ConfigSource.system());
    }

    /**
     * The same layout, with the settings of {@code source} ({@code DASK4J_LOG_DIR}, the {@code dask4j.mpi.*} settings
     * of {@link MpiOptions}) read once here.
     */
    public static MpiClusterOptions defaults(ConfigSource source) {
        String logs = Settings.LOG_DIR.stringValue(source, "logs");
        return new MpiClusterOptions(MpiProtocol.AUTO, 1, 0, null, 0, 1, true, "worker", false, 0, null, null,
                Path.of(logs), Duration.ofMinutes(2), CommOptions.defaults(), DashboardConfig.defaults(),
                ClassAllowList.defaults(), MpiOptions.fromSettings(source));
    }

    /** The layout of a job of {@code size} ranks under these options. */
    public RankLayout layout(int size) {
        return new RankLayout(size, schedulerRank, clientRank, exclusiveWorkers);
    }

    public MpiClusterOptions withProtocol(MpiProtocol p) {
        return new MpiClusterOptions(p, threads, memoryLimit, localDirectory, schedulerRank, clientRank, exclusiveWorkers,
                workerNamePrefix, tcpListener, schedulerPort, host, schedulerFile, logDirectory, startTimeout, comm, dashboard, allowedClasses, mpi);
    }

    public MpiClusterOptions withThreads(int n) {
        return new MpiClusterOptions(protocol, n, memoryLimit, localDirectory, schedulerRank, clientRank, exclusiveWorkers,
                workerNamePrefix, tcpListener, schedulerPort, host, schedulerFile, logDirectory, startTimeout, comm, dashboard, allowedClasses, mpi);
    }

    public MpiClusterOptions withMemoryLimit(long bytes) {
        return new MpiClusterOptions(protocol, threads, bytes, localDirectory, schedulerRank, clientRank, exclusiveWorkers,
                workerNamePrefix, tcpListener, schedulerPort, host, schedulerFile, logDirectory, startTimeout, comm, dashboard, allowedClasses, mpi);
    }

    public MpiClusterOptions withLocalDirectory(Path dir) {
        return new MpiClusterOptions(protocol, threads, memoryLimit, dir, schedulerRank, clientRank, exclusiveWorkers,
                workerNamePrefix, tcpListener, schedulerPort, host, schedulerFile, logDirectory, startTimeout, comm, dashboard, allowedClasses, mpi);
    }

    public MpiClusterOptions withSchedulerRank(int rank) {
        return new MpiClusterOptions(protocol, threads, memoryLimit, localDirectory, rank, clientRank, exclusiveWorkers,
                workerNamePrefix, tcpListener, schedulerPort, host, schedulerFile, logDirectory, startTimeout, comm, dashboard, allowedClasses, mpi);
    }

    public MpiClusterOptions withClientRank(int rank) {
        return new MpiClusterOptions(protocol, threads, memoryLimit, localDirectory, schedulerRank, rank, exclusiveWorkers,
                workerNamePrefix, tcpListener, schedulerPort, host, schedulerFile, logDirectory, startTimeout, comm, dashboard, allowedClasses, mpi);
    }

    public MpiClusterOptions withExclusiveWorkers(boolean exclusive) {
        return new MpiClusterOptions(protocol, threads, memoryLimit, localDirectory, schedulerRank, clientRank, exclusive,
                workerNamePrefix, tcpListener, schedulerPort, host, schedulerFile, logDirectory, startTimeout, comm, dashboard, allowedClasses, mpi);
    }

    public MpiClusterOptions withWorkerNamePrefix(String prefix) {
        return new MpiClusterOptions(protocol, threads, memoryLimit, localDirectory, schedulerRank, clientRank, exclusiveWorkers,
                prefix, tcpListener, schedulerPort, host, schedulerFile, logDirectory, startTimeout, comm, dashboard, allowedClasses, mpi);
    }

    /** Makes the scheduler listen on TCP too ({@code port} 0 picks a free one), for clients outside the job. */
    public MpiClusterOptions withTcpListener(boolean on, int port) {
        return new MpiClusterOptions(protocol, threads, memoryLimit, localDirectory, schedulerRank, clientRank, exclusiveWorkers,
                workerNamePrefix, on, port, host, schedulerFile, logDirectory, startTimeout, comm, dashboard, allowedClasses, mpi);
    }

    public MpiClusterOptions withHost(String h) {
        return new MpiClusterOptions(protocol, threads, memoryLimit, localDirectory, schedulerRank, clientRank, exclusiveWorkers,
                workerNamePrefix, tcpListener, schedulerPort, h, schedulerFile, logDirectory, startTimeout, comm, dashboard, allowedClasses, mpi);
    }

    public MpiClusterOptions withSchedulerFile(Path file) {
        return new MpiClusterOptions(protocol, threads, memoryLimit, localDirectory, schedulerRank, clientRank, exclusiveWorkers,
                workerNamePrefix, tcpListener, schedulerPort, host, file, logDirectory, startTimeout, comm, dashboard, allowedClasses, mpi);
    }

    public MpiClusterOptions withLogDirectory(Path dir) {
        return new MpiClusterOptions(protocol, threads, memoryLimit, localDirectory, schedulerRank, clientRank, exclusiveWorkers,
                workerNamePrefix, tcpListener, schedulerPort, host, schedulerFile, dir, startTimeout, comm, dashboard, allowedClasses, mpi);
    }

    public MpiClusterOptions withStartTimeout(Duration timeout) {
        return new MpiClusterOptions(protocol, threads, memoryLimit, localDirectory, schedulerRank, clientRank, exclusiveWorkers,
                workerNamePrefix, tcpListener, schedulerPort, host, schedulerFile, logDirectory, timeout, comm, dashboard, allowedClasses, mpi);
    }

    public MpiClusterOptions withComm(CommOptions options) {
        return new MpiClusterOptions(protocol, threads, memoryLimit, localDirectory, schedulerRank, clientRank, exclusiveWorkers,
                workerNamePrefix, tcpListener, schedulerPort, host, schedulerFile, logDirectory, startTimeout, options, dashboard, allowedClasses, mpi);
    }

    /** The scheduler rank's dashboard: {@link DashboardConfig#parse} an address, or {@link DashboardConfig#disabled()}. */
    public MpiClusterOptions withDashboard(DashboardConfig config) {
        return new MpiClusterOptions(protocol, threads, memoryLimit, localDirectory, schedulerRank, clientRank, exclusiveWorkers,
                workerNamePrefix, tcpListener, schedulerPort, host, schedulerFile, logDirectory, startTimeout, comm, config, allowedClasses, mpi);
    }

    /** How this rank starts MPI: the library, the progress engine's and the transport's options. */
    public MpiClusterOptions withMpi(MpiOptions options) {
        return new MpiClusterOptions(protocol, threads, memoryLimit, localDirectory, schedulerRank, clientRank, exclusiveWorkers,
                workerNamePrefix, tcpListener, schedulerPort, host, schedulerFile, logDirectory, startTimeout, comm, dashboard,
                allowedClasses, options);
    }

    /** The classes workers and the client rank may build from frames; see {@link ClassAllowList}. */
    public MpiClusterOptions withAllowedClasses(ClassAllowList allowed) {
        return new MpiClusterOptions(protocol, threads, memoryLimit, localDirectory, schedulerRank, clientRank, exclusiveWorkers,
                workerNamePrefix, tcpListener, schedulerPort, host, schedulerFile, logDirectory, startTimeout, comm, dashboard, allowed, mpi);
    }
}
