package io.dask4j.bench;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Bounds a job that runs in other processes (an {@code mpirun} job, say) by a timeout over its whole run: a
 * virtual thread waits for the job and, at the timeout, kills it and every process it started. A caller
 * that reads the job's output to its end needs this: a hung rank keeps the output open, so the end never
 * comes and a timeout checked after it never applies. The watchdog of {@link MpiJobs#run}, for callers that
 * read the output themselves. Start it right after the job; any thread may call {@link #awaitJob}.
 */
public final class JobWatchdog {

    private final Process job;
    private final AtomicBoolean killed = new AtomicBoolean();
    private final Thread thread;

    private JobWatchdog(Process job, long timeoutSeconds) {
        this.job = job;
        this.thread = Thread.ofVirtual().name("job-watchdog").start(() -> {
            try {
                if (!job.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                    killed.set(true);
                    // The descendants first: killed after their parent, mpirun's ranks could be missed.
                    job.descendants().forEach(ProcessHandle::destroyForcibly);
                    job.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    /** Watches {@code job}, killing it with its descendants if it runs longer than {@code timeoutSeconds}. */
    public static JobWatchdog start(Process job, long timeoutSeconds) {
        return new JobWatchdog(job, timeoutSeconds);
    }

    /** Waits until the job has ended, by itself or killed at the timeout; true if the watchdog killed it. */
    public boolean awaitJob() throws InterruptedException {
        job.waitFor();
        thread.join();
        return killed.get();
    }
}
