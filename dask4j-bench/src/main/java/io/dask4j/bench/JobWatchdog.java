package io.dask4j.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Starts a job that runs in other processes (an {@code mpirun} job, the driver JVM of a tcp job) and bounds it:
 * at {@code timeoutSeconds} over its whole run, and when this JVM is stopped (SIGTERM, Ctrl-C, {@code
 * System.exit}), the job and every process it started are stopped, so that no rank outlives the command that
 * started it. A caller that reads the job's output to its end needs the timeout: a hung rank keeps the output
 * open, so the end never comes and a timeout checked after it never applies. One caller thread per job.
 */
public final class JobWatchdog {

    private final Process job;
    private final AtomicBoolean killed = new AtomicBoolean();
    private final Thread timer;
    private final Thread stopOnExit;

    private JobWatchdog(Process job, long timeoutSeconds, Thread stopOnExit) {
        this.job = job;
        this.stopOnExit = stopOnExit;
        this.timer = Thread.ofVirtual().name("job-watchdog").start(() -> {
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

    /**
     * Starts {@code command} (standard error passed through, standard output for the caller to read) under a
     * watchdog. The stop-on-exit hook is in place before the job starts, and the start holds the lock the hook
     * takes: a stop arriving at any moment finds either no job or the job.
     */
    public static JobWatchdog start(List<String> command, long timeoutSeconds) throws IOException {
        AtomicReference<Process> started = new AtomicReference<>();
        Thread stopOnExit = new Thread(() -> {
            synchronized (started) {
                if (started.get() != null) {
                    stop(started.get());
                }
            }
        }, "stop-job-on-exit");
        Runtime.getRuntime().addShutdownHook(stopOnExit);
        try {
            synchronized (started) {
                started.set(new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start());
            }
        } catch (IOException | RuntimeException e) {
            Runtime.getRuntime().removeShutdownHook(stopOnExit);
            throw e;
        }
        return new JobWatchdog(started.get(), timeoutSeconds, stopOnExit);
    }

    public Process job() {
        return job;
    }

    /** Waits until the job has ended, by itself or killed at the timeout; true if the watchdog killed it. */
    public boolean awaitJob() throws InterruptedException {
        job.waitFor();
        timer.join();
        try {
            Runtime.getRuntime().removeShutdownHook(stopOnExit);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or about to: it stops what is left
        }
        return killed.get();
    }

    /** Stops a job and every process it started: politely first (mpirun passes it on to the ranks), then not. */
    private static void stop(Process job) {
        List<ProcessHandle> all = new ArrayList<>(job.descendants().toList());   // before they lose their parent
        all.add(job.toHandle());
        all.forEach(ProcessHandle::destroy);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        for (ProcessHandle p : all) {
            try {
                p.onExit().get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (Exception stillRunning) {
                p.destroyForcibly();
            }
        }
    }
}
