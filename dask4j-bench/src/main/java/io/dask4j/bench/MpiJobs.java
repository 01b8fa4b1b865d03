package io.dask4j.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Benchmarks that run as an {@code mpirun} job of this JVM's java: the launcher command for each MPI, and
 * running the job while reading its results back from the client rank's standard output. Stateless; any
 * thread.
 */
public final class MpiJobs {

    /** How long a job that failed waits for signs that it was stopped instead ({@link JobWatchdog#stopped}). */
    public static final Duration STOP_GRACE = Duration.ofSeconds(1);

    private MpiJobs() {
    }

    /**
     * The launcher of {@code mpi} ({@code openmpi} or {@code mpich}, as {@link MpiLaunchers#find} finds it) with
     * {@code ranks} ranks of this JVM's java, ready for the JVM options. Open MPI runs as root and oversubscribed
     * (more ranks than cores allowed); see {@link #mpirun(String, int, int)} for its single-copy setting.
     *
     * @throws IllegalArgumentException for another {@code mpi}
     */
    public static List<String> mpirun(String mpi, int ranks) {
        return mpirun(mpi, ranks, List.of());
    }

    /** {@link #mpirun(String, int)} with {@code placement}'s launcher options (hosts, agent) before {@code -np}. */
    public static List<String> mpirun(String mpi, int ranks, List<String> placement) {
        List<String> line = launcherOptions(mpi, ranks, Runtime.getRuntime().availableProcessors());
        line.addAll(placement);
        line.addAll(List.of("-np", Integer.toString(ranks), java()));
        return line;
    }

    /**
     * {@link #mpirun(String, int)} on a machine of {@code cores} cores. With a core per rank, Open MPI's vader
     * transport goes without its single-copy mechanism (CMA), as its copy-in/copy-out pipeline moves large
     * messages faster on small VMs (12.1 against 4.6 GB/s at 64 MiB, see the
     * README's "MPI transport tuning"). With more ranks than
     * cores it keeps CMA: the pipeline needs sender and receiver on a core at the same time, and a rank that
     * waits for a descheduled peer spins in MPI; with CMA the receiver copies alone. Measured on 5 ranks / 2
     * cores, {@code bench seed --layout row-major} (most blocks cross between workers): 0.96-1.09 s a run with
     * CMA, 1.66 s without.
     */
    static List<String> mpirun(String mpi, int ranks, int cores) {
        List<String> line = launcherOptions(mpi, ranks, cores);
        line.addAll(List.of("-np", Integer.toString(ranks), java()));
        return line;
    }

    /**
     * {@code mpirun} and its global options for a job of {@code ranks} ranks, without any program: the caller
     * appends one or more application contexts ({@code -np N java ...}, separated by {@code ":"}), which both
     * Open MPI and MPICH's Hydra run as ranks in order. See {@link #mpirun(String, int, int)}.
     *
     * @throws IllegalArgumentException for another {@code mpi}
     */
    public static List<String> launcherOptions(String mpi, int ranks) {
        return launcherOptions(mpi, ranks, Runtime.getRuntime().availableProcessors());
    }

    /** This JVM's java executable, for the ranks of a job. */
    public static String java() {
        return ProcessHandle.current().info().command().orElse("java");
    }

    private static List<String> launcherOptions(String mpi, int ranks, int cores) {
        String kind = MpiLaunchers.kind(mpi);
        // None found: the Debian name, so that the job fails to start with the name of the program it lacks.
        return launcherOptions(kind, Objects.requireNonNullElse(MpiLaunchers.find(kind), MpiLaunchers.debianName(kind)), ranks, cores);
    }

    /** {@link #launcherOptions(String, int)} with {@code launcher}, a program of MPI {@code kind}. */
    static List<String> launcherOptions(String kind, String launcher, int ranks, int cores) {
        // Debian installs both MPIs side by side, so its launchers name their library for the ranks. A plain
        // launcher names the library installed beside it, if any; else the ranks find theirs by the launcher's
        // environment (MpiLibrary.candidates).
        boolean debian = launcher.equals(MpiLaunchers.debianName(kind));
        String library = debian ? MpiLaunchers.sonames(kind).getFirst() : MpiLaunchers.libraryBeside(kind, launcher);
        boolean openMpi = kind.equals("openmpi");
        List<String> line = new ArrayList<>(List.of(launcher));
        if (openMpi) {
            line.addAll(List.of("--allow-run-as-root", "--oversubscribe"));
            if (ranks <= cores) {
                line.addAll(List.of("--mca", "btl_vader_single_copy_mechanism", "none"));
            }
            if (library != null) {
                line.addAll(List.of("-x", "DASK4J_MPI_LIB=" + library));
            }
        } else if (library != null) {
            line.addAll(List.of("-genv", "DASK4J_MPI_LIB", library));
        }
        return line;
    }

    /**
     * A JVM option containing "cp" makes Open MPI's mpirun rewrite the argument after it (it takes it for
     * {@code -cp}), which the JVM then reads as its main class: refuse it with the reason instead.
     *
     * @throws IllegalArgumentException naming the option
     */
    public static void rejectOpenMpiRewrites(List<String> jvmArgs) {
        for (String arg : jvmArgs) {
            if (arg.contains("cp")) {
                throw new IllegalArgumentException("--jvm-arg '" + arg + "' contains \"cp\": Open MPI's mpirun would "
                        + "rewrite the java argument after it (it takes it for -cp); use --mpi mpich, or spell it differently");
            }
        }
    }

    /**
     * A class path containing "cp" (a directory such as {@code /home/cpaul}) makes Open MPI's mpirun rewrite the
     * main class after it: refuse it with the reason, before anything starts, instead of a ClassNotFoundException
     * on every rank.
     *
     * @throws IllegalArgumentException naming the remedy
     */
    public static void rejectOpenMpiRewrites(String mpi, String classPath) {
        if (MpiLaunchers.kind(mpi).equals("openmpi") && classPath.contains("cp")) {
            throw new IllegalArgumentException("the class path contains \"cp\" (" + excerptAround(classPath, "cp")
                    + "): Open MPI's mpirun would take it for -cp and rewrite the main class after it; use --mpi mpich, "
                    + "or a project and Maven repository whose paths do not contain \"cp\"");
        }
    }

    private static String excerptAround(String text, String part) {
        int at = text.indexOf(part);
        int from = text.lastIndexOf(java.io.File.pathSeparatorChar, at) + 1;
        int to = text.indexOf(java.io.File.pathSeparatorChar, at);
        return text.substring(from, to < 0 ? text.length() : to);
    }

    /** The first words of {@code command} for a log line, with class paths elided (they run to kilobytes). */
    static String describe(List<String> command) {
        List<String> shown = new ArrayList<>();
        for (int i = 0; i < command.size() && shown.size() < 12; i++) {
            String before = i > 0 ? command.get(i - 1) : "";
            shown.add(before.equals("--class-path") || before.equals("-cp") ? "<class path>" : command.get(i));
        }
        return String.join(" ", shown) + (command.size() > shown.size() ? " ..." : "");
    }

    /** Deletes a directory of rank logs and the files in it; a leftover in a temporary directory is harmless. */
    public static void deleteLogs(Path dir) {
        try (var files = Files.list(dir)) {
            for (Path f : files.toList()) {
                Files.deleteIfExists(f);
            }
            Files.deleteIfExists(dir);
        } catch (IOException ignored) {
            // left for the system's temporary-file cleanup
        }
    }

    /**
     * Runs {@code command} (an mpirun job, or the driver JVM of a tcp job) and returns the lines of its
     * standard output that start with {@code prefix} (without it); every other line goes to this process's
     * standard error. The job is killed after
     * {@code timeoutSeconds} even if it hangs with its output open, and when this JVM is stopped (SIGTERM,
     * Ctrl-C, {@code System.exit}), so that no driver JVM or rank outlives the command that started it.
     * Returns null, after saying why on standard error, if the job failed, timed out or printed no result.
     *
     * @throws JobStoppedException if the job ended because it or this JVM was stopped (Ctrl-C, SIGTERM): then
     *     nothing is said, since nothing failed
     */
    public static List<String> run(List<String> command, String prefix, long timeoutSeconds, String what) throws Exception {
        System.err.println("starting: " + describe(command));
        JobWatchdog watchdog = JobWatchdog.start(command, timeoutSeconds);
        Process job = watchdog.job();
        List<String> results = new ArrayList<>();
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(job.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                if (line.startsWith(prefix)) {
                    results.add(line.substring(prefix.length()));
                } else if (!watchdog.stopRequested()) {   // after a stop: the ranks' shutdown, no news to the user
                    System.err.println(line);
                }
            }
        }
        if (watchdog.awaitJob()) {
            System.err.println(what + ": the job did not finish within " + timeoutSeconds + " s and was killed");
            return null;
        }
        if (job.exitValue() != 0 || results.isEmpty()) {
            JobStoppedException stopped = watchdog.stopped(STOP_GRACE);
            if (stopped != null) {
                throw stopped;
            }
            System.err.println(what + ": the job exited with " + job.exitValue() + (results.isEmpty() ? " and no result" : ""));
            return null;
        }
        return results;
    }
}
