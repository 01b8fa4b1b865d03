package io.dask4j.jobs;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Jobs that run as an {@code mpirun} job of this JVM's java (the demo, the benchmarks): running the job while
 * reading its results back from the client rank's standard output. The command lines come from {@link
 * io.dask4j.mpi.launch.MpiCommandLine}. Stateless; any thread.
 */
public final class MpiJobs {

    /** How long a job that failed waits for signs that it was stopped instead ({@link JobWatchdog#stopped}). */
    public static final Duration STOP_GRACE = Duration.ofSeconds(1);

    private MpiJobs() {
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
