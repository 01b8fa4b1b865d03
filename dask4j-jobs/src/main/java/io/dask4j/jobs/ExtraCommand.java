package io.dask4j.jobs;

/**
 * A subcommand of {@code ./dask4j} that lives in a module the CLI does not depend on (the benchmarks), so that
 * the CLI's class path, which users put on their own jobs' class path, carries none of its libraries. The CLI
 * finds implementations with {@link java.util.ServiceLoader} when their module is on the class path (the
 * launcher script adds the bench module for {@code ./dask4j bench} only). Implementations need a public no-argument
 * constructor; the CLI's main thread calls them once while it builds its command line.
 */
public interface ExtraCommand {

    /** The subcommand's name, as typed after {@code ./dask4j}. */
    String name();

    /** The picocli command object ({@code @Command}-annotated) that runs it. */
    Object command();
}
