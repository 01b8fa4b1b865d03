package io.dask4j.jobs.seed;

import io.dask4j.mpi.launch.MpiCommandLine;
import io.dask4j.comm.JvmFlags;
import io.dask4j.jobs.AotCaches;
import io.dask4j.jobs.JobStoppedException;
import io.dask4j.jobs.MpiJobs;
import io.dask4j.launcher.MpiCluster;
import io.dask4j.launcher.MpiClusterOptions;
import io.dask4j.jobs.MpiJobOptions;
import io.dask4j.launcher.MpiProtocol;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The mpi backend of {@link SeedBenchCommand}: {@link #launch} starts {@code mpirun -np workers+2} (or
 * {@code workers+1} with {@code --client-rank 0}) of this JVM's java and class path running the same command
 * with {@code --in-mpi-job}; on each rank {@link #runRank} enters {@link MpiCluster#execute} (rank 0 scheduler,
 * rank 1 client or the client beside the scheduler, the rest workers), the client rank runs the workload and prints {@code SEED-RESULT <json>}, which the launching
 * process reads back. Every other line of the job goes to this process's stderr.
 */
final class MpiSeedJob {

    private MpiSeedJob() {
    }

    /** The JVM roles of an mpi job, for {@link AotCaches}: the client's JVM is the scheduler's with --client-rank 0. */
    static List<String> roles(SeedBenchCommand cmd) {
        return cmd.mpiJob.clientRank == 0 ? List.of("scheduler+client", "worker") : List.of("scheduler", "client", "worker");
    }

    static SeedResult launch(SeedBenchCommand cmd, AotCaches caches) throws Exception {
        boolean ownLogs = cmd.mpiLogs == null;
        if (ownLogs) {
            cmd.mpiLogs = Files.createTempDirectory("dask4j-seed-mpi-");
        }
        List<String> command;
        try {
            command = command(cmd, caches);
        } catch (RuntimeException badOptions) {
            if (ownLogs) {
                MpiJobs.deleteLogs(cmd.mpiLogs);   // no job ran: nothing to keep
            }
            throw badOptions;
        }
        SeedResult result;
        try {
            result = cmd.runJob(command, caches, roles(cmd));
        } catch (JobStoppedException stopped) {
            if (ownLogs) {
                MpiJobs.deleteLogs(cmd.mpiLogs);   // stopped on purpose: nobody will look for them
            }
            throw stopped;
        }
        if (result == null) {
            System.err.println("seed bench: rank logs in " + cmd.mpiLogs);
        } else if (ownLogs) {
            MpiJobs.deleteLogs(cmd.mpiLogs);   // a successful run needs no rank logs; a failed one keeps them
        }
        return result;
    }

    /** {@link #command(SeedBenchCommand, AotCaches)} without AOT caches. */
    static List<String> command(SeedBenchCommand cmd) {
        return command(cmd, AotCaches.OFF);
    }

    /**
     * The mpirun command line: workers + 2 ranks (workers + 1 with the client beside the scheduler) of this JVM's
     * java running this command with --in-mpi-job, as one application context per role, since their JVM options
     * differ: the scheduler (rank 0) and the client (rank 1, or rank 0 with it) get {@link SeedBenchCommand#serviceJvmArgs}, the workers {@link
     * SeedBenchCommand#workerJvmArgs}, each with its role's AOT cache. While the workers' cache is missing only
     * rank 2 trains it (a context of its own), so that the workers do not each assemble one.
     */
    static List<String> command(SeedBenchCommand cmd, AotCaches caches) {
        List<String> line = MpiCommandLine.mpirun(cmd.mpiJob.mpi).launcherOptions(cmd.mpiJob.ranks(cmd.workers));
        line.addAll(cmd.mpiJob.placement.launcherOptions(cmd.mpiJob.mpi));
        if (cmd.mpiJob.clientRank == 0) {
            addContext(line, 1, rankCommand(cmd, cmd.serviceJvmArgs(), caches.jvmArgs("scheduler+client", true)));
        } else {
            addContext(line, 1, rankCommand(cmd, cmd.serviceJvmArgs(), caches.jvmArgs("scheduler", true)));
            addContext(line, 1, rankCommand(cmd, cmd.serviceJvmArgs(), caches.jvmArgs("client", true)));
        }
        if (!caches.enabled() || caches.has("worker")) {
            addContext(line, cmd.workers, rankCommand(cmd, cmd.workerJvmArgs(), caches.jvmArgs("worker", false)));
        } else {
            addContext(line, 1, rankCommand(cmd, cmd.workerJvmArgs(), caches.jvmArgs("worker", true)));
            if (cmd.workers > 1) {
                addContext(line, cmd.workers - 1, rankCommand(cmd, cmd.workerJvmArgs(), List.of()));
            }
        }
        return line;
    }

    private static void addContext(List<String> line, int ranks, List<String> command) {
        if (line.contains("-np")) {
            line.add(":");
        }
        line.addAll(List.of("-np", Integer.toString(ranks), JvmFlags.thisJava()));
        line.addAll(command);
    }

    /** A rank's class path (first, see JvmFlags.classPathFirst), JVM options ({@code jvmArgs}, then {@code aotArgs}), main class and arguments. */
    private static List<String> rankCommand(SeedBenchCommand cmd, List<String> jvmArgs, List<String> aotArgs) {
        List<String> line = new ArrayList<>(JvmFlags.classPathFirst(cmd.jobClassPath));
        line.addAll(jvmArgs);
        line.addAll(aotArgs);
        // More ranks than cores: the progress engine sees it (OMPI_COMM_WORLD_LOCAL_SIZE / MPI_LOCALNRANKS) and
        // parks instead of spinning, so that idle ranks leave the cores to the tasks (EngineOptions.defaults).
        line.addAll(List.of(SeedBenchCommand.class.getName(),
                "--in-mpi-job", "--backend", "mpi", "--protocol", cmd.mpiJob.protocol,
                "--mpi-logs", cmd.mpiLogs == null ? "logs" : cmd.mpiLogs.toString(), "--n", Integer.toString(cmd.n), "--chunk", cmd.chunk,
                "--layout", cmd.layout,
                "--workers", Integer.toString(cmd.workers), "--runs", Integer.toString(cmd.runs),
                "--client-rank", Integer.toString(cmd.mpiJob.clientRank),
                "--warmup", Integer.toString(cmd.warmup), "--rereads", Integer.toString(cmd.rereads), "--seed", Long.toString(cmd.seed),
                "--input", cmd.input));
        return line;
    }

    /** On a rank of the job: serve (scheduler, workers) or run the workload (client) and print its result. */
    static int runRank(SeedBenchCommand cmd, SeedWorkload workload) throws Exception {
        MpiClusterOptions options = MpiClusterOptions.defaults().withProtocol(MpiProtocol.parse(cmd.mpiJob.protocol))
                .withThreads(1).withLogDirectory(cmd.mpiLogs == null ? Path.of("logs") : cmd.mpiLogs)
                .withClientRank(cmd.mpiJob.clientRank);
        String label = MpiJobOptions.label(options.protocol());
        SeedResult result = MpiCluster.execute(options, client -> workload.run(client, label, MpiCluster.workerRanks().size()));
        System.out.println(SeedResult.LINE_PREFIX + result.toJson());
        System.out.flush();
        return 0;
    }
}
