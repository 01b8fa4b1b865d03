package io.dask4j.mpi;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Tells whether this JVM is shutting down because of a signal (mpirun's SIGTERM when it stops a job, Ctrl-C)
 * rather than because the program called {@code System.exit}. The JDK runs a signal's shutdown on a thread it
 * names after the signal ("SIGTERM handler"), which stays alive while the shutdown hooks run; nothing public says
 * more, and installing a handler of our own would take the signal from the user's program.
 *
 * <p>{@link MpiRuntime} asks at JVM exit, to leave promptly when the launcher is stopping the job; launchers ask to
 * tell a stop from a failure in what they report.
 *
 * <p>Stateless; meant for exit tasks and shutdown hooks, any thread.
 */
public final class ExitSignal {
    private static final Pattern HANDLER_THREAD = Pattern.compile("(SIG[A-Z0-9]+) handler");

    private ExitSignal() {
    }

    /** The signal's name ({@code "SIGTERM"}) if a signal started the shutdown under way, else empty. */
    public static Optional<String> current() {
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            var match = HANDLER_THREAD.matcher(thread.getName());
            if (match.matches()) {
                return Optional.of(match.group(1));
            }
        }
        return Optional.empty();
    }
}
