package io.dask4j.bench.seed;

import io.dask4j.launcher.MpiCluster;
import io.dask4j.launcher.MpiClusterOptions;
import io.dask4j.launcher.MpiProtocol;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The mpi backend of {@link SeedBenchCommand}: {@link #launch} starts {@code mpirun -np workers+2} of this
 * JVM's java and class path running the same command with {@code --in-mpi-job}; on each rank
 * {@link #runRank} enters {@link MpiCluster#execute} (rank 0 scheduler, rank 1 client, the rest
 * workers), the client rank runs the workload and prints {@code SEED-RESULT <json>}, which the launching
 * process reads back. Every other line of the job goes to this process's stderr.
 */
final class MpiSeedJob {
    static final String RESULT_PREFIX = "SEED-RESULT ";

    private MpiSeedJob() {
    }

    static SeedResult launch(SeedBenchCommand cmd) throws Exception {
        boolean ownLogs = cmd.mpiLogs == null;
        if (ownLogs) {
            cmd.mpiLogs = Files.createTempDirectory("dask4j-seed-mpi-");
        }
        List<String> command = command(cmd);
        System.err.println("starting: " + String.join(" ", command.subList(0, Math.min(command.size(), 12))) + " ...");
        Process job = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        SeedResult result = null;
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(job.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                if (line.startsWith(RESULT_PREFIX)) {
                    result = SeedResult.fromJson(line.substring(RESULT_PREFIX.length()));
                } else {
                    System.err.println(line);
                }
            }
        }
        if (!job.waitFor(cmd.timeoutSeconds, TimeUnit.SECONDS)) {
            job.descendants().forEach(ProcessHandle::destroyForcibly);
            job.destroyForcibly();
            System.err.println("seed bench: the mpi job did not finish within " + cmd.timeoutSeconds + " s and was killed");
            return null;
        }
        if (job.exitValue() != 0 || result == null) {
            System.err.println("seed bench: the mpi job exited with " + job.exitValue() + (result == null ? " and no result" : "")
                    + "; rank logs in " + cmd.mpiLogs);
            return null;
        }
        if (ownLogs) {
            deleteQuietly(cmd.mpiLogs);   // a successful run needs no rank logs; a failed one keeps them
        }
        return result;
    }

    private static void deleteQuietly(Path dir) {
        try (var files = Files.list(dir)) {
            for (Path f : files.toList()) {
                Files.deleteIfExists(f);
            }
            Files.deleteIfExists(dir);
        } catch (java.io.IOException ignored) {
            // leftover logs in the temporary directory are harmless
        }
    }

    /** The mpirun command line: workers + 2 ranks of this JVM's java running this command with --in-mpi-job. */
    static List<String> command(SeedBenchCommand cmd) {
        List<String> line = new ArrayList<>();
        switch (cmd.mpi.toLowerCase(Locale.ROOT)) {
            case "openmpi" -> line.addAll(List.of("mpirun.openmpi", "--allow-run-as-root", "--oversubscribe",
                    "--mca", "btl_vader_single_copy_mechanism", "none", "-x", "DASK4J_MPI_LIB=libmpi.so.40"));
            case "mpich" -> line.addAll(List.of("mpirun.mpich", "-genv", "DASK4J_MPI_LIB", "libmpich.so.12"));
            default -> throw new IllegalArgumentException("unknown --mpi '" + cmd.mpi + "': expected openmpi or mpich");
        }
        String java = ProcessHandle.current().info().command().orElse("java");
        int ranks = cmd.workers + 2;
        line.addAll(List.of("-np", Integer.toString(ranks), java));
        List<String> jvmArgs = cmd.workerJvmArgs();
        if (line.getFirst().equals("mpirun.openmpi")) {
            rejectOpenMpiRewrites(jvmArgs);
        }
        line.addAll(jvmArgs);
        // More ranks than cores: the progress engine sees it (OMPI_COMM_WORLD_LOCAL_SIZE / MPI_LOCALNRANKS) and
        // parks instead of spinning, so that idle ranks leave the cores to the tasks (EngineOptions.defaults).
        // Open MPI 4.1's mpirun takes the first java argument containing "cp" (such as "tcp") for a class path
        // flag and rewrites the argument after it; the ranks undo that (OpenMpiArguments), and the protocol
        // goes in upper case so that it is not that argument in the common case.
        line.addAll(List.of("--class-path", System.getProperty("java.class.path"), SeedBenchCommand.class.getName(),
                "--in-mpi-job", "--backend", "mpi", "--protocol", cmd.protocol.toUpperCase(Locale.ROOT),
                "--mpi-logs", cmd.mpiLogs == null ? "logs" : cmd.mpiLogs.toString(), "--n", Integer.toString(cmd.n), "--chunk", cmd.chunk,
                "--layout", cmd.layout,
                "--workers", Integer.toString(cmd.workers), "--runs", Integer.toString(cmd.runs),
                "--warmup", Integer.toString(cmd.warmup), "--seed", Long.toString(cmd.seed)));
        return line;
    }

    /**
     * A JVM option containing "cp" would make Open MPI's mpirun rewrite the option after it (or the class path
     * flag), which the JVM then takes for the main class: refuse it with a reason instead of a cryptic failure.
     */
    private static void rejectOpenMpiRewrites(List<String> jvmArgs) {
        for (String arg : jvmArgs) {
            if (arg.contains("cp")) {
                throw new IllegalArgumentException("--jvm-arg '" + arg + "' contains \"cp\": Open MPI's mpirun would "
                        + "rewrite the java argument after it (it takes it for -cp); use --mpi mpich, or spell it differently");
            }
        }
    }

    /** On a rank of the job: serve (scheduler, workers) or run the workload (client) and print its result. */
    static int runRank(SeedBenchCommand cmd, SeedWorkload workload) throws Exception {
        MpiClusterOptions options = MpiClusterOptions.defaults().withProtocol(MpiProtocol.parse(cmd.protocol))
                .withThreads(1).withLogDirectory(cmd.mpiLogs == null ? Path.of("logs") : cmd.mpiLogs);
        String label = options.protocol() == MpiProtocol.MPI ? "mpi" : "mpirun-tcp";
        SeedResult result = MpiCluster.execute(options, client -> workload.run(client, label, MpiCluster.workerRanks().size()));
        System.out.println(RESULT_PREFIX + result.toJson());
        System.out.flush();
        return 0;
    }
}
