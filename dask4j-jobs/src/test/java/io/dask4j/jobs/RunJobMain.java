package io.dask4j.jobs;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A command that runs a job through {@link MpiJobs#run} and waits: the process a test stops with a signal.
 * Its last line on standard output says how the run ended ({@code OUTCOME stopped|failed|...}); a shutdown
 * hook holds the JVM's exit until that line is out, so that the test sees what the command did after the
 * stop, not a race between it and the JVM's halt.
 */
public final class RunJobMain {
    private RunJobMain() {
    }

    public static void main(String[] args) throws Exception {
        CountDownLatch reported = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                reported.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "await-outcome"));
        String outcome = "none";
        try {
            List<String> results = MpiJobs.run(List.of(args), "RESULT ", 600, "test job");
            outcome = results == null ? "failed" : "results " + results;
        } catch (JobStoppedException e) {
            outcome = "stopped " + e.exitCode() + (e.thisProcessStopping() ? " by this JVM's shutdown" : "");
        } finally {
            System.out.println("OUTCOME " + outcome);
            System.out.flush();
            reported.countDown();
        }
    }
}
