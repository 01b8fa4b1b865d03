package io.dask4j.jobs;

import picocli.CommandLine;

/** Commands that run another command on the user's behalf (the demo runs the seed workload). Stateless; any thread. */
public final class NestedCommands {

    private NestedCommands() {
    }

    /**
     * A command line for {@code command}, which the command of {@code parent} parses and runs on the user's
     * behalf with arguments passed through: it bears the name the user typed ({@code dask4j bench comm}, not
     * the class's {@code comm-mpi}) in its usage and errors, writes where {@code parent} does, and reports
     * failures as {@code parent}'s command line does.
     */
    public static CommandLine nested(CommandLine.Model.CommandSpec parent, Object command, String name) {
        CommandLine outer = parent.commandLine();
        return new CommandLine(command).setCommandName(name).setOut(outer.getOut()).setErr(outer.getErr())
                .setExecutionExceptionHandler(outer.getExecutionExceptionHandler());
    }
}
