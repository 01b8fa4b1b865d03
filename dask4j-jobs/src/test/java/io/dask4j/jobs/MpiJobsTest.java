package io.dask4j.jobs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MpiJobsTest {

    @Test
    void theStartingLineShowsTheFirstWordsWithoutClassPaths() {
        assertThat(MpiJobs.describe(List.of("mpirun", "-np", "2", "java", "--class-path", "/a.jar:/b.jar", "Main")))
                .isEqualTo("mpirun -np 2 java --class-path <class path> Main");
        List<String> many = java.util.Collections.nCopies(20, "w");
        assertThat(MpiJobs.describe(many)).isEqualTo(String.join(" ", many.subList(0, 12)) + " ...");
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void runReturnsTheResultLinesOfAJobThatSucceeds() throws Exception {
        List<String> lines = MpiJobs.run(List.of("sh", "-c", "echo noise; echo 'R: one'; echo 'R: two'"), "R: ", 20, "test");
        assertThat(lines).containsExactly("one", "two");
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aJobThatFailsOrPrintsNoResultGivesNull() throws Exception {
        assertThat(MpiJobs.run(List.of("sh", "-c", "echo 'R: early'; exit 3"), "R: ", 20, "test")).isNull();
        assertThat(MpiJobs.run(List.of("sh", "-c", "echo nothing"), "R: ", 20, "test")).isNull();
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aJobThatHangsWithItsOutputOpenIsKilledAtTheTimeout() throws Exception {
        // Without the kill, the sleep keeps the output open for 60 s and the test times out at 30.
        assertThat(MpiJobs.run(List.of("sh", "-c", "echo 'R: partial'; sleep 60"), "R: ", 1, "test")).isNull();
    }

    /** Starts {@link RunJobMain} running a job of a shell and its sleep, and returns once both run. */
    private static Process commandRunningASleepJob(ProcessBuilder.Redirect output) throws Exception {
        return commandRunningASleepJob(output, "sleep 300 & wait");
    }

    /** {@link #commandRunningASleepJob(ProcessBuilder.Redirect)} with the job's shell running {@code script}. */
    private static Process commandRunningASleepJob(ProcessBuilder.Redirect output, String script) throws Exception {
        String java = ProcessHandle.current().info().command().orElseThrow();
        Process command = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                RunJobMain.class.getName(), "sh", "-c", script)
                .redirectErrorStream(true).redirectOutput(output).start();
        List<ProcessHandle> job = List.of();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            job = command.descendants().toList();
            if (job.stream().anyMatch(p -> p.info().command().orElse("").endsWith("sleep"))) {
                break;
            }
            Thread.sleep(50);
        }
        assertThat(job).as("the job and its sleep started").hasSizeGreaterThanOrEqualTo(2);
        return command;
    }

    @Test
    @Timeout(60)
    void stoppingTheCommandStopsTheJobItStarted() throws Exception {
        Process command = commandRunningASleepJob(ProcessBuilder.Redirect.DISCARD);
        try {
            List<ProcessHandle> job = command.descendants().toList();
            command.destroy();   // SIGTERM, as a batch system or kill(1) sends
            assertThat(command.waitFor(20, TimeUnit.SECONDS)).isTrue();
            for (ProcessHandle p : job) {
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (running(p) && System.nanoTime() < until) {
                    Thread.sleep(20);
                }
                assertThat(running(p)).as(() -> "job process " + p.pid() + " " + p.info()).isFalse();
            }
        } finally {
            command.descendants().forEach(ProcessHandle::destroyForcibly);
            command.destroyForcibly();
        }
    }

    /**
     * A job that ends because its command is being stopped did not fail: the command learns that it was
     * stopped (so that, say, the demo does not start its tcp fallback during the shutdown), reports no
     * failure, and passes on none of what the job says as it stops (a client rank's stack trace, say). Before,
     * it printed the job's last words and "the job exited with 143 and no result", and returned as from a
     * failure.
     */
    @Test
    @Timeout(60)
    void aJobEndedByStoppingItsCommandIsReportedAsStoppedNotFailed(@TempDir Path dir) throws Exception {
        Path output = dir.resolve("command.out");
        // The words are split in the script, so that the command line the command echoes does not contain them.
        Process command = commandRunningASleepJob(ProcessBuilder.Redirect.to(output.toFile()),
                "echo job-says-'hello' >&2; trap \"echo job-says-'goodbye' >&2; exit 1\" TERM; sleep 300 & wait");
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!Files.readString(output).contains("job-says-hello") && System.nanoTime() - deadline < 0) {
                Thread.sleep(20);
            }
            assertThat(Files.readString(output)).as("the job's standard error is passed on").contains("job-says-hello");
            command.destroy();
            assertThat(command.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(command.exitValue()).isEqualTo(143);
            assertThat(Files.readString(output)).contains("OUTCOME stopped 143 by this JVM's shutdown")
                    .doesNotContain("job-says-goodbye", "the job exited");
        } finally {
            command.descendants().forEach(ProcessHandle::destroyForcibly);
            command.destroyForcibly();
        }
    }

    @Test
    @Timeout(30)
    void aJobEndedByAStopSignalIsStoppedNotFailed() {
        assertThatThrownBy(() -> MpiJobs.run(List.of("sh", "-c", "kill -TERM $$"), "R: ", 20, "test"))
                .isInstanceOfSatisfying(JobStoppedException.class, e -> {
                    assertThat(e.exitCode()).isEqualTo(143);
                    assertThat(e.thisProcessStopping()).isFalse();
                    assertThat(e).hasMessage("the job was stopped by SIGTERM");
                });
        assertThat(JobStoppedException.isStopStatus(130)).isTrue();
        assertThat(JobStoppedException.isStopStatus(137)).as("SIGKILL: the OOM killer, a failure").isFalse();
        assertThat(JobStoppedException.isStopStatus(1)).isFalse();
    }

    /** Alive and not a zombie: orphans of the stopped command may wait for a reaper that a container lacks. */
    private static boolean running(ProcessHandle p) throws IOException {
        Path stat = Path.of("/proc", Long.toString(p.pid()), "stat");
        if (!p.isAlive() || !Files.exists(stat)) {
            return p.isAlive();
        }
        String line = Files.readString(stat);
        return line.charAt(line.lastIndexOf(')') + 2) != 'Z';
    }
}
