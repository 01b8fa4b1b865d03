package io.dask4j.jobs;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Starts a job that runs in other processes (an {@code mpirun} job, the driver JVM of a tcp job) and bounds it:
 * at {@code timeoutSeconds} over its whole run, and when this JVM is stopped (SIGTERM, Ctrl-C, {@code
 * System.exit}), the job and every process it started are stopped, so that no rank outlives the command that
 * started it. A caller that reads the job's output to its end needs the timeout: a hung rank keeps the output
 * open, so the end never comes and a timeout checked after it never applies. After a job that did not
 * succeed, {@link #stopped} tells a stop (which the command should end on quietly) from a failure; once a stop
 * is under way, the job's standard error is no longer passed on (its ranks' shutdown, say a client rank's
 * stack trace for a computation cut short, is no news to whoever stopped it). One caller thread per job; the
 * stop-on-exit hook runs on a shutdown thread, the standard error's forwarder on a virtual thread.
 */
public final class JobWatchdog {

    /** How long {@link #awaitJob} waits for the rest of the job's standard error after the job ended. */
    private static final Duration ERRORS_DRAIN = Duration.ofSeconds(2);

    private final Process job;
    private final AtomicBoolean killed = new AtomicBoolean();
    private final Thread timer;
    private final Thread stopOnExit;
    /** Counted down by the stop-on-exit hook as it starts: this JVM is being stopped. */
    private final CountDownLatch stopping;
    private final Thread errors;

    private JobWatchdog(Process job, long timeoutSeconds, Thread stopOnExit, CountDownLatch stopping) {
        this.job = job;
        this.stopOnExit = stopOnExit;
        this.stopping = stopping;
        this.errors = Thread.ofVirtual().name("job-stderr").start(() -> forwardErrors(job.getErrorStream()));
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
     * Starts {@code command} (standard error passed on to this JVM's until a stop, standard output for the
     * caller to read) under a watchdog. The stop-on-exit hook is in place before the job starts, and the start
     * holds the lock the hook takes: a stop arriving at any moment finds either no job or the job.
     */
    public static JobWatchdog start(List<String> command, long timeoutSeconds) throws IOException {
        AtomicReference<Process> started = new AtomicReference<>();
        CountDownLatch stopping = new CountDownLatch(1);
        Thread stopOnExit = new Thread(() -> {
            stopping.countDown();
            synchronized (started) {
                if (started.get() != null) {
                    stop(started.get());
                }
            }
        }, "stop-job-on-exit");
        Runtime.getRuntime().addShutdownHook(stopOnExit);
        try {
            synchronized (started) {
                started.set(new ProcessBuilder(command).start());
            }
        } catch (IOException | RuntimeException e) {
            Runtime.getRuntime().removeShutdownHook(stopOnExit);
            throw e;
        }
        return new JobWatchdog(started.get(), timeoutSeconds, stopOnExit, stopping);
    }

    public Process job() {
        return job;
    }

    /** True once this JVM is being stopped (its stop-on-exit hook has started); any thread. */
    public boolean stopRequested() {
        return stopping.getCount() == 0;
    }

    /** Waits until the job has ended, by itself or killed at the timeout; true if the watchdog killed it. */
    public boolean awaitJob() throws InterruptedException {
        job.waitFor();
        timer.join();
        // The job's last words before the caller's verdict on it; bounded, as an orphan may hold the pipe open.
        errors.join(ERRORS_DRAIN);
        try {
            Runtime.getRuntime().removeShutdownHook(stopOnExit);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or about to: it stops what is left
        }
        return killed.get();
    }

    /**
     * Whether the job, which ended without success, was stopped rather than failed: because this JVM is being
     * stopped (the hook stops the job), or because the job's exit status is that of a stop signal. Returns the
     * exception the command should end with, or null for a failure. Ctrl-C reaches the job and this JVM at
     * once, and the job (mpirun, which then exits with a plain 1) may end before this JVM starts to shut down:
     * so a failure is only called one after {@code grace} passed without a shutdown. Call after {@link #awaitJob}.
     */
    public JobStoppedException stopped(Duration grace) throws InterruptedException {
        long deadline = System.nanoTime() + grace.toNanos();
        while (true) {
            // The hook was removed if the job ended before any shutdown, so it may never run: ask the JVM too.
            if (stopping.getCount() == 0 || jvmShuttingDown()) {
                return JobStoppedException.byShutdown();
            }
            if (System.nanoTime() - deadline >= 0) {
                break;
            }
            Thread.sleep(10);
        }
        int status = job.exitValue();
        return JobStoppedException.isStopStatus(status) ? JobStoppedException.bySignal(status) : null;
    }

    /** Copies the job's standard error to this JVM's, line by line, dropping what comes once a stop is under way. */
    private void forwardErrors(InputStream in) {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                if (!stopRequested()) {
                    System.err.println(line);
                }
            }
        } catch (IOException | UncheckedIOException e) {
            // the job's end closed the pipe under the reader: nothing more to pass on
        }
    }

    /** True once this JVM has begun to shut down: from then on it refuses new shutdown hooks. */
    static boolean jvmShuttingDown() {
        Thread probe = new Thread(() -> { });
        try {
            Runtime.getRuntime().addShutdownHook(probe);
        } catch (IllegalStateException shuttingDown) {
            return true;
        }
        Runtime.getRuntime().removeShutdownHook(probe);
        return false;
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
