package io.dask4j.jobs;

import java.util.Map;

/**
 * A job that was stopped, not one that failed: this JVM is being stopped (Ctrl-C, SIGTERM), and with it the
 * job it started, or the job itself was ended by such a signal. A command that meets it ends at once with
 * {@link #exitCode()}, the status of a process a signal stopped, and without a failure message, fallback or
 * retry: whoever sent the signal wants the work to end. Immutable.
 */
public final class JobStoppedException extends RuntimeException {

    /** 128 + the signal: how a shell reports a process that SIGHUP, SIGINT or SIGTERM ended. */
    private static final Map<Integer, String> STOP_STATUSES = Map.of(129, "SIGHUP", 130, "SIGINT", 143, "SIGTERM");
    /** The status when only "this JVM is stopping" is known; the JVM exits with its own signal's status anyway. */
    private static final int SIGTERM_STATUS = 143;

    private final int exitCode;
    private final boolean thisProcessStopping;

    private JobStoppedException(String message, int exitCode, boolean thisProcessStopping) {
        super(message, null, false, false);   // an expected end: no stack trace to fill or show
        this.exitCode = exitCode;
        this.thisProcessStopping = thisProcessStopping;
    }

    /** The job was stopped because this JVM is shutting down. */
    public static JobStoppedException byShutdown() {
        return new JobStoppedException("stopped", SIGTERM_STATUS, true);
    }

    /** The job ended with {@code status}, which {@link #isStopStatus} says a stop signal caused. */
    public static JobStoppedException bySignal(int status) {
        return new JobStoppedException("the job was stopped by " + STOP_STATUSES.getOrDefault(status, "a signal"), status, false);
    }

    /** True for the exit status of a process that SIGHUP, SIGINT or SIGTERM ended (129, 130, 143). */
    public static boolean isStopStatus(int status) {
        return STOP_STATUSES.containsKey(status);
    }

    public int exitCode() {
        return exitCode;
    }

    /**
     * True if this JVM is shutting down: the user stopped this very command, and a message would only
     * interleave with the shutdown.
     */
    public boolean thisProcessStopping() {
        return thisProcessStopping;
    }
}
