package io.dask4j.cli;

import io.dask4j.comm.config.UnknownSettings;
import java.util.ServiceLoader;
import io.dask4j.jobs.ExtraCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code ./dask4j} command line. The launcher script finds a JDK 25, builds when sources changed,
 * and runs this class; {@code ./dask4j test} and {@code ./dask4j classpath} are handled by the script
 * itself. Each subcommand is a picocli command in its own class. Bad options end with their message and the
 * usage (exit code 2), other failures with one line {@code dask4j <command>: <message>} ({@link ExecutionErrors}).
 */
@Command(name = "dask4j", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "A distributed task scheduler for the JVM, with a first-class MPI transport.",
        footer = {"", "Also: ./dask4j test (the whole test suite), ./dask4j classpath (for your own programs)."},
        subcommands = {
            DemoCommand.class,
            SchedulerCommand.class,
            WorkerCommand.class,
            MpiCommand.class,
            CommandLine.HelpCommand.class,
        })
public final class Main implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        UnknownSettings.warnOnce();
        int code = commandLine().execute(args);
        // Some commands leave non-daemon threads of a closed cluster winding down; the exit code is final.
        System.exit(code);
    }

    /**
     * The {@code dask4j} command line with every subcommand, its failures reported by {@link ExecutionErrors}:
     * the CLI's own, then those of other modules on the class path ({@link ExtraCommand}: {@code bench}).
     */
    static CommandLine commandLine() {
        CommandLine line = new CommandLine(new Main()).setExecutionExceptionHandler(new ExecutionErrors());
        for (ExtraCommand extra : ServiceLoader.load(ExtraCommand.class)) {
            line.addSubcommand(extra.name(), extra.command());
        }
        return line;
    }

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }
}
