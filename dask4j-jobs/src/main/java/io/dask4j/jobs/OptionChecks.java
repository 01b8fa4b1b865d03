package io.dask4j.jobs;

import io.dask4j.mpi.launch.MpiLaunchers;
import java.util.function.Function;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * Checks of option values that picocli's types do not express (a count of at least 1, a port, a size, a
 * text with a grammar of its own), for a command to make before it starts anything. Each failure is a
 * {@link ParameterException} of the command's own {@code spec}, so that picocli prints the message and the
 * usage of the command the user typed ({@code dask4j bench seed}, not {@code seed}) and exits with 2.
 * Stateless; called on the command's thread.
 */
public final class OptionChecks {

    private OptionChecks() {
    }

    /** Fails unless {@code value} is at least {@code min}: a count of 0 hung or crashed deep inside a benchmark. */
    public static void atLeast(CommandSpec spec, String option, long value, long min) {
        if (value < min) {
            throw new ParameterException(spec.commandLine(), option + " must be at least " + min + ", got " + value);
        }
    }

    /** Fails unless {@code port} is a TCP port, 0 (any free one) to 65535. */
    public static void port(CommandSpec spec, String option, int port) {
        if (port < 0 || port > 65535) {
            throw new ParameterException(spec.commandLine(), option + " must be 0-65535, got " + port);
        }
    }

    /**
     * {@code parser} applied to {@code text}, its {@link IllegalArgumentException} turned into a command-line
     * error that names the option (unless its message does already).
     */
    public static <T> T parsed(CommandSpec spec, String option, String text, Function<String, T> parser) {
        try {
            return parser.apply(text);
        } catch (IllegalArgumentException e) {
            String message = e.getMessage() == null ? "bad value '" + text + "'" : e.getMessage();
            throw new ParameterException(spec.commandLine(), message.contains(option) ? message : option + ": " + message, e);
        }
    }

    /** {@code mpi} in lower case if it names an MPI a job can be started with ({@code openmpi} or {@code mpich}). */
    public static String mpi(CommandSpec spec, String mpi) {
        return parsed(spec, "--mpi", mpi, MpiLaunchers::kind);
    }
}
