package io.dask4j.jobs.seed;

import io.dask4j.comm.JvmFlags;
import io.dask4j.jobs.AotCaches;
import io.dask4j.jobs.MpiJobs;
import io.dask4j.runtime.client.Client;
import io.dask4j.runtime.cluster.LocalCluster;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * The tcp backend of {@link SeedBenchCommand}: {@link #launch} starts a fresh driver JVM (this JVM's java
 * and class path) running the same command with {@code --in-tcp-job}; there {@link #runDriver} starts a
 * local cluster of worker JVMs (the scheduler and the client live in the driver, as in Dask's
 * {@code LocalCluster}), runs the workload and prints {@code SEED-RESULT <json>}, which the launching
 * process reads back. The job runs in fresh JVMs, as the mpi job does, so that each role can start with its
 * AOT cache and no run depends on what the launching JVM did before. Every other line of the job goes to
 * this process's stderr.
 */
final class TcpSeedJob {
    /** The JVM roles of a tcp job, for {@link AotCaches}. */
    static final List<String> ROLES = List.of("driver", "worker");

    private TcpSeedJob() {
    }

    static SeedResult launch(SeedBenchCommand cmd, AotCaches caches) throws Exception {
        return cmd.runJob(command(cmd, caches), caches, ROLES);
    }

    /** The driver JVM's command line: java, its options and AOT cache, then this command with --in-tcp-job. */
    static List<String> command(SeedBenchCommand cmd, AotCaches caches) {
        List<String> line = new ArrayList<>();
        line.add(JvmFlags.thisJava());
        line.addAll(driverJvmArgs());
        line.addAll(caches.jvmArgs("driver", true));
        line.addAll(List.of("--class-path", cmd.jobClassPath, SeedBenchCommand.class.getName(),
                "--in-tcp-job", "--backend", "tcp", "--aot-cache", "off", "--n", Integer.toString(cmd.n), "--chunk", cmd.chunk,
                "--layout", cmd.layout, "--workers", Integer.toString(cmd.workers), "--runs", Integer.toString(cmd.runs),
                "--warmup", Integer.toString(cmd.warmup), "--rereads", Integer.toString(cmd.rereads), "--seed", Long.toString(cmd.seed),
                "--input", cmd.input));
        if (cmd.workerHeap != null) {
            line.addAll(List.of("--worker-heap", cmd.workerHeap));
        }
        for (String arg : cmd.jvmArgs) {
            line.add("--jvm-arg=" + arg);
        }
        for (String arg : caches.jvmArgs("worker", true)) {
            line.add("--role-jvm-arg=" + arg);
        }
        return line;
    }

    /**
     * The driver's JVM options: what the scheduler and client need (native access for the MPI binding's
     * classes, open lambdas for Kryo), then this JVM's own {@code -D} and {@code -X} options (a user's
     * {@code DASK4J_JAVA_OPTS}) except AOT ones, which the driver gets from its own cache.
     */
    static List<String> driverJvmArgs() {
        List<String> args = new ArrayList<>(JvmFlags.REQUIRED);
        for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if ((arg.startsWith("-D") || arg.startsWith("-X")) && !arg.startsWith("-XX:AOT")) {
                args.add(arg);
            }
        }
        return args;
    }

    /** In the driver JVM: the local cluster (workers get {@code --role-jvm-arg}s too), then the workload. */
    static SeedResult runDriver(SeedBenchCommand cmd, SeedWorkload workload) throws Exception {
        List<String> workerArgs = new ArrayList<>(cmd.workerJvmArgs());
        workerArgs.addAll(cmd.roleJvmArgs);
        try (LocalCluster cluster = LocalCluster.builder().workers(cmd.workers).threadsPerWorker(1).processes(true)
                .jvmArgs(workerArgs).start();
             Client client = cluster.client()) {
            return workload.run(client, "tcp", cmd.workers);
        }
    }
}
