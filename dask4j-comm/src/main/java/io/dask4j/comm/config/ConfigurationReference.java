package io.dask4j.comm.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes docs/configuration.md from {@link Settings#ALL}: run
 * {@value #REGENERATE}
 * from the repository root after changing a declaration (ConfigurationReferenceTest fails until the checked-in file
 * matches). Stateless; any thread.
 */
public final class ConfigurationReference {

    /** The command that rewrites docs/configuration.md. */
    public static final String REGENERATE = "./mvnw -B -o -q -pl dask4j-comm compile && $JAVA_HOME/bin/java -cp dask4j-comm/target/classes "
            + "io.dask4j.comm.config.ConfigurationReference docs/configuration.md";

    private static final String HEADER = """
            # Configuration

            <!-- Generated from io.dask4j.comm.config.Settings: edit the declarations there, then run
                 %s -->

            Most of dask4j is configured in code, through options records passed to constructors (below, [Java
            options](#java-options)) and through the options of [`./dask4j` commands](commands.md). The environment
            variables and system properties below are the rest: every one that dask4j reads is listed here. A
            `-Ddask4j.*` property or a `DASK4J_*` variable that is not in these tables gets a warning in the log that
            names the closest one (a typo would otherwise change nothing). A value that does not parse as its type
            stops the process with an error that names the setting.

            System properties go on the JVM's command line: `DASK4J_JAVA_OPTS="-Ddask4j.mpi.maxParkMicros=200" ./dask4j
            mpi ...`, or `java -Ddask4j.mpi.maxParkMicros=200 ...` in your own `mpirun` line. "An oversubscribed node" is
            one where the launcher put more ranks than the node has cores.
            """.formatted(REGENERATE);

    private static final String FOOTER = """
            ## Java options

            | options | meaning |
            | --- | --- |
            | `CommOptions` | identity, connect timeout (30 s, retried with jittered backoff), handshake timeout (10 s), maximum message size (4 GiB, checked before allocating), dead-peer timeout (30 s: a tcp comm to a peer that vanished or stopped reading fails after it; `Duration.ZERO` keeps the system's TCP timeouts), the secret (`withSecret`, `withInsecureNoAuth`) |
            | `ClassAllowList` | task classes that may be deserialized, given to `LocalCluster.builder().allowedClasses`, `WorkerConfig`, `Client.connect`, `MpiClusterOptions` ([security](security.md)) |
            | `SchedulerConfig.withUnusedFunctionBytes` / `LocalCluster.builder().unusedFunctionBytes` | serialized task functions no task runs any more that the scheduler and workers keep for reuse (default 8 MiB); past it the oldest are forgotten and travel again if a later task needs them |
            | `LocalCluster.builder()` | workers, threads per worker, processes or in-process, transport, memory limit, spill directory, dashboard (off by default) |
            | `MpiClusterOptions` | an MPI job's rank roles, worker threads, memory limit, dashboard (`withDashboard(DashboardConfig.parse(...))`, on by default at 127.0.0.1:8787), allowed classes |
            | `MpiOptions` | how a rank starts MPI: the library, `EngineOptions` (the MPI progress engine's idle strategy), `MpiTransportOptions` (the mpi backend's windows and receive memory), doorbells, Open MPI's idle yield; `MpiOptions.fromSettings` reads the `dask4j.mpi` properties above once, and `MpiClusterOptions.withMpi` or `MpiRuntime.start(options)` take it |

            Listeners bind to loopback unless given another host (`./dask4j scheduler --host`, `./dask4j mpi --host`); an
            MPI job whose ranks span several hosts binds its TCP listeners to this host's address instead, since
            loopback would not reach them. [Tuning](tuning.md) says which of these settings matter and when.
            """;

    private ConfigurationReference() {
    }

    /** docs/configuration.md as the declarations make it. */
    public static String render() {
        StringBuilder out = new StringBuilder(HEADER);
        for (Setting.Section section : Setting.Section.values()) {
            out.append("\n## ").append(section.title()).append("\n\n");
            out.append("| setting | type | default | unit | meaning |\n| --- | --- | --- | --- | --- |\n");
            for (Setting s : Settings.ALL) {
                if (s.section() == section) {
                    out.append("| `").append(s.usage()).append("` | ")
                            .append(s.kind() == Setting.Kind.PROPERTY ? "property, " : "environment, ")
                            .append(s.type().label()).append(" | ").append(s.defaultText()).append(" | ")
                            .append(s.unit()).append(" | ").append(s.meaning()).append(" |\n");
                }
            }
        }
        return out.append('\n').append(FOOTER).toString();
    }

    /** Writes {@link #render()} to the file given as the only argument, or to standard output without one. */
    public static void main(String[] args) throws IOException {
        if (args.length == 0) {
            System.out.print(render());
        } else {
            Files.writeString(Path.of(args[0]), render(), StandardCharsets.UTF_8);
        }
    }
}
