package io.dask4j.bench.tasks;

import io.dask4j.mpi.launch.MpiCommandLine;
import io.dask4j.comm.JvmFlags;
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
 * The mpi backend of {@link TasksBenchCommand}: {@link #launch} starts {@code mpirun -np workers+2} (or
 * {@code workers+1} with {@code --client-rank 0}) of this JVM's java running the same command with {@code
 * --in-mpi-job}; on each rank {@link #runRank} enters {@link MpiCluster#execute} (rank 0 scheduler, rank 1
 * client or the client beside the scheduler, the rest workers), and the client rank runs
 * the workloads and prints one {@code TASKS-RESULT <json>} line per workload for the launching process.
 */
final class MpiTasksJob {
    static final String RESULT_PREFIX = "TASKS-RESULT ";

    private MpiTasksJob() {
    }

    /** Runs the job; the results in order, or null if it failed (the reason and the rank logs on stderr). */
    static List<TasksBenchCommand.Result> launch(TasksBenchCommand cmd) throws Exception {
        Path logs = Files.createTempDirectory("dask4j-tasks-mpi-");
        List<String> command;
        try {
            command = command(cmd, logs);
        } catch (RuntimeException badOptions) {
            MpiJobs.deleteLogs(logs);   // no job ran: nothing to keep
            throw badOptions;
        }
        List<String> lines;
        try {
            lines = MpiJobs.run(command, RESULT_PREFIX, cmd.mpiJob.timeoutSeconds, "tasks bench");
        } catch (JobStoppedException stopped) {
            MpiJobs.deleteLogs(logs);   // stopped on purpose: nobody will look for them
            throw stopped;
        }
        if (lines == null) {
            System.err.println("tasks bench: rank logs in " + logs);
            return null;
        }
        List<TasksBenchCommand.Result> results = new ArrayList<>();
        for (String line : lines) {
            results.add(TasksBenchCommand.Result.fromJson(line));
        }
        MpiJobs.deleteLogs(logs);   // a successful run needs no rank logs; a failed one keeps them
        return results;
    }

    /** The mpirun command line: workers + 2 ranks running this command with --in-mpi-job. */
    static List<String> command(TasksBenchCommand cmd, Path logs) {
        List<String> line = MpiCommandLine.mpirun(cmd.mpiJob.mpi).ranks(cmd.mpiJob.ranks(cmd.workers),
                cmd.mpiJob.placement.launcherOptions(cmd.mpiJob.mpi));
        // The same JVM options as the tcp backend's workers, the class path first (JvmFlags.classPathFirst).
        line.addAll(JvmFlags.javaCommand(JvmFlags.thisJava(), TasksJvm.OPTIONS,
                System.getProperty("java.class.path"), TasksBenchCommand.class.getName(), List.of(
                "--in-mpi-job", "--backend", "mpi", "--protocol", cmd.mpiJob.protocol,
                "--workers", Integer.toString(cmd.workers), "--threads", Integer.toString(cmd.threads),
                "--n", Integer.toString(cmd.n), "--repeat", Integer.toString(cmd.repeat),
                "--client-rank", Integer.toString(cmd.mpiJob.clientRank), "--workload", String.join(",", cmd.workloadNames),
                "--rounds", Integer.toString(cmd.rounds), "--chain", Integer.toString(cmd.chain),
                "--mpi-logs", logs.toString())));
        if (cmd.trace != null) {
            line.addAll(List.of("--trace", cmd.trace.toAbsolutePath().toString()));
        }
        return line;
    }

    /** On a rank of the job: serve (scheduler, workers) or run the workloads (client) and print the results. */
    static int runRank(TasksBenchCommand cmd) throws Exception {
        MpiClusterOptions options = MpiClusterOptions.defaults().withProtocol(MpiProtocol.parse(cmd.mpiJob.protocol))
                .withThreads(cmd.threads).withLogDirectory(cmd.mpiLogs == null ? Path.of("logs") : cmd.mpiLogs)
                .withClientRank(cmd.mpiJob.clientRank);
        String label = MpiJobOptions.label(options.protocol());
        cmd.startTrace();
        List<TasksBenchCommand.Result> results = MpiCluster.execute(options, client -> cmd.workloads(client, label));
        cmd.stopTrace();
        for (TasksBenchCommand.Result r : results) {
            System.out.println(RESULT_PREFIX + r.toJson());
        }
        System.out.flush();
        return 0;
    }
}
