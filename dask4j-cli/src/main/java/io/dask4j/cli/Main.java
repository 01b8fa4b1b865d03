package io.dask4j.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code ./dask4j} command line. The launcher script finds a JDK 25, builds when sources changed,
 * and runs this class; {@code ./dask4j test} and {@code ./dask4j classpath} are handled by the script
 * itself. Each subcommand is a picocli command in its own class.
 */
@Command(name = "dask4j", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "A distributed task scheduler for the JVM, with a first-class MPI transport.",
        footer = {"", "Also: ./dask4j test (the whole test suite), ./dask4j classpath (for your own programs)."},
        subcommands = {
            DemoCommand.class,
            SchedulerCommand.class,
            WorkerCommand.class,
            MpiCommand.class,
            BenchCommand.class,
            CommandLine.HelpCommand.class,
        })
public final class Main implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        int code = new CommandLine(new Main()).execute(args);
        // Some commands leave non-daemon threads of a closed cluster winding down; the exit code is final.
        System.exit(code);
    }

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }
}
