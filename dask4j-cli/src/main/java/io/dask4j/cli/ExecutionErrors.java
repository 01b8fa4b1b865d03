package io.dask4j.cli;

import io.dask4j.comm.config.ConfigSource;
import io.dask4j.comm.config.Settings;
import io.dask4j.jobs.JobStoppedException;
import io.dask4j.comm.CommException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * What {@code ./dask4j} prints when a command fails while it runs (bad options found by picocli, or by a
 * command before it starts, are reported by picocli with the usage). A failure the user can act on (bad
 * input, a port in use, a peer gone, a file missing) is one line, {@code dask4j <command>: <message>}, with
 * exit code 2 for bad input ({@link IllegalArgumentException}) and 1 for the rest; any other exception is a
 * bug and keeps its stack trace after that line. With {@code DASK4J_LOG_LEVEL} at DEBUG or TRACE every
 * failure shows its stack trace. A job stopped by a signal ({@link JobStoppedException}) is no failure: the
 * command ends with the signal's status, silently if this JVM is being stopped itself. Called by picocli on
 * the thread that ran the command.
 */
final class ExecutionErrors implements CommandLine.IExecutionExceptionHandler {

    private final boolean stackTraces;

    /** Stack traces as {@code DASK4J_LOG_LEVEL} says. */
    ExecutionErrors() {
        this(isDebug(Settings.LOG_LEVEL.stringValue(ConfigSource.system(), null)));
    }

    /** Stack traces for every failure if {@code stackTraces}, else for bugs only. */
    ExecutionErrors(boolean stackTraces) {
        this.stackTraces = stackTraces;
    }

    static boolean isDebug(String logLevel) {
        return logLevel != null && (logLevel.equalsIgnoreCase("DEBUG") || logLevel.equalsIgnoreCase("TRACE")
                || logLevel.equalsIgnoreCase("ALL"));
    }

    @Override
    public int handleExecutionException(Exception e, CommandLine line, CommandLine.ParseResult parsed) {
        CommandSpec spec = line.getCommandSpec();
        PrintWriter err = line.getErr();
        if (e instanceof JobStoppedException stopped) {
            // Not a failure: the user stopped this command (then it says nothing while the JVM shuts down), or
            // someone stopped its job.
            if (!stopped.thisProcessStopping()) {
                err.println(spec.qualifiedName() + ": " + stopped.getMessage());
                err.flush();
            }
            return stopped.exitCode();
        }
        boolean expected = isExpected(e);
        err.println(spec.qualifiedName() + ": " + (expected ? describe(e) : "internal error: " + e));
        if (!expected || stackTraces) {
            e.printStackTrace(err);
        }
        err.flush();
        return e instanceof IllegalArgumentException ? spec.exitCodeOnInvalidInput() : spec.exitCodeOnExecutionException();
    }

    private static boolean isExpected(Exception e) {
        return e instanceof IllegalArgumentException || e instanceof IllegalStateException || e instanceof CommException
                || e instanceof UncheckedIOException || e instanceof IOException;
    }

    /**
     * The message, and the cause's when it adds to it: a port in use reads "cannot listen on tcp://...:
     * BindException (Address already in use)" already, but a wrapped I/O error may say only what was being done.
     */
    static String describe(Throwable e) {
        String message = e.getMessage() == null || e.getMessage().isBlank() ? e.getClass().getSimpleName() : e.getMessage();
        Throwable cause = e.getCause();
        if (cause != null && cause.getMessage() != null && !message.contains(cause.getMessage())) {
            message += ": " + cause.getMessage();
        }
        // One line: the rest of a multi-line message (a remote traceback, say) shows with the stack trace (DEBUG).
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline).stripTrailing() + " ...";
    }
}
