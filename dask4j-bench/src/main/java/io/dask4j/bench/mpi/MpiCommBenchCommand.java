package io.dask4j.bench.mpi;

import io.dask4j.mpi.launch.MpiCommandLine;
import io.dask4j.comm.JvmFlags;
import io.dask4j.jobs.JobStoppedException;
import io.dask4j.jobs.JobWatchdog;
import io.dask4j.jobs.MpiJobs;
import io.dask4j.jobs.OptionChecks;
import io.dask4j.jobs.MpiPlacementOptions;
import io.dask4j.bench.PingPongOptions;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/**
 * {@code dask4j bench comm --backend mpi}: starts a 2-rank {@code mpirun} job of this JVM's java and class
 * path running {@link MpiBenchRank}, and reports, for 8 B, 1 KiB, 1 MiB, 16 MiB and 64 MiB: one-way latency
 * (median, p99) and bandwidth of a raw MPI ping-pong through the FFM binding ({@code layer=binding}) and of
 * a ping-pong through the Comm API ({@code layer=comm}, one frame per message, native memory unless
 * {@code --heap-frames}), then the idle CPU of each rank (an open comm with a pending read). Each layer is
 * warmed up first (the Comm API with 4 s of small messages, then every size), so that what is measured is
 * JIT-compiled code, not the interpreter: without it the first size (8 B) read 7-9 us instead of 1.3-2. Goals
 * (docs/benchmarks.md): 8 B one-way through the
 * Comm API at most 5 us and 3x better than tcp; 64 MiB at least 80% of raw C MPI and 2x tcp; idle rank at
 * most 2% of a core.
 *
 * <p>With {@code --json}: one JSON object per line ({@code backend, mpi, layer, size_bytes, iterations,
 * latency_us_median, latency_us_p99, bandwidth_gbps}; idle lines carry {@code idle_cpu_percent_of_core}, the
 * whole process's CPU in a window that starts once the JIT has stopped compiling, and {@code jit_cpu_percent_of_core},
 * the part of it the JIT compiler threads still used).
 */
@Command(name = "comm-mpi", mixinStandardHelpOptions = true,
        description = "Measure mpi comm latency, bandwidth and idle CPU under mpirun (Open MPI or MPICH).")
public final class MpiCommBenchCommand implements Callable<Integer> {

    @Option(names = "--mpi", defaultValue = "openmpi", description = "openmpi or mpich (default: ${DEFAULT-VALUE})")
    String mpi;

    @Mixin
    PingPongOptions pingPong = new PingPongOptions();

    /** Where the two ranks run (e.g. --hosts node1,node2 for a round trip between nodes). */
    @Mixin
    MpiPlacementOptions placement = new MpiPlacementOptions();

    @Option(names = "--idle-seconds", defaultValue = "3", description = "how long the idle CPU is measured (default: ${DEFAULT-VALUE})")
    int idleSeconds;

    @Option(names = "--heap-frames", description = "send byte[] frames (copied off-heap once) instead of native memory")
    boolean heapFrames;

    @Option(names = "--min-rounds", defaultValue = "10",
            description = "fewest timed round trips per size; large sizes get 1 GiB of traffic otherwise (default: ${DEFAULT-VALUE})")
    int minRounds;

    @Option(names = "--jvm-arg", description = "extra JVM option for both ranks, repeatable (e.g. -Ddask4j.mpi.pooledFrameBytes=N)")
    List<String> jvmArgs = new ArrayList<>();

    @Option(names = "--timeout", defaultValue = "600",
            description = "seconds before the job is killed, even if it hangs (default: ${DEFAULT-VALUE})")
    int timeoutSeconds;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private final PrintStream out;

    public MpiCommBenchCommand() {
        this(System.out);
    }

    MpiCommBenchCommand(PrintStream out) {
        this.out = out;
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new MpiCommBenchCommand()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        pingPong.check(spec);
        placement.check(spec);
        OptionChecks.atLeast(spec, "--idle-seconds", idleSeconds, 1);
        OptionChecks.atLeast(spec, "--min-rounds", minRounds, 1);
        OptionChecks.atLeast(spec, "--timeout", timeoutSeconds, 1);
        return runJob(command());
    }

    /**
     * Runs {@code command} (the mpirun job), forwarding its results as they come, and returns its exit code,
     * or 1 if it ran past {@code --timeout}: then it is killed, whether or not it still holds its output open.
     *
     * @throws JobStoppedException if the job ended because it or this JVM was stopped (Ctrl-C, SIGTERM)
     */
    int runJob(List<String> command) throws Exception {
        JobWatchdog watchdog = JobWatchdog.start(command, timeoutSeconds);
        Process job = watchdog.job();
        if (!pingPong.json) {
            out.println(BenchResult.header());
        }
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(job.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                if (line.startsWith("JSON ")) {
                    if (pingPong.json) {
                        out.println(line.substring(5));
                    }
                } else if (line.startsWith("ROW ")) {
                    if (!pingPong.json) {
                        out.println(line.substring(4));
                    }
                } else if (line.startsWith("IDLE ")) {
                    out.println(pingPong.json ? line.substring(5) : "idle " + line.substring(5));
                } else if (!watchdog.stopRequested()) {   // after a stop: the ranks' shutdown, no news to the user
                    System.err.println(line);
                }
                out.flush();
            }
        }
        if (watchdog.awaitJob()) {
            System.err.println("mpi bench: the job did not finish within " + timeoutSeconds + " s and was killed");
            return 1;
        }
        if (job.exitValue() != 0) {
            // Ctrl-C or SIGTERM, to this command or to its job, is no failure (mpirun itself exits with a plain 1).
            JobStoppedException stopped = watchdog.stopped(MpiJobs.STOP_GRACE);
            if (stopped != null) {
                throw stopped;
            }
        }
        return job.exitValue();
    }

    /** The mpirun command line: 2 ranks of this JVM's java running {@link MpiBenchRank}. */
    List<String> command() {
        String impl = mpi.toLowerCase(Locale.ROOT);
        List<String> line;
        try {
            line = MpiCommandLine.mpirun(impl).ranks(2, placement.launcherOptions(impl));
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        List<String> options = new ArrayList<>(List.of(JvmFlags.STACK));
        options.addAll(jvmArgs);
        // The class path first (JvmFlags.classPathFirst): Open MPI's mpirun then leaves the options alone.
        line.addAll(JvmFlags.javaCommand(JvmFlags.thisJava(), options, System.getProperty("java.class.path"),
                MpiBenchRank.class.getName(), List.of(impl,
                Arrays.stream(pingPong.sizesOrDefault()).mapToObj(Long::toString).collect(Collectors.joining(",")),
                Integer.toString(pingPong.iterations), Integer.toString(idleSeconds), heapFrames ? "heap" : "native",
                Integer.toString(minRounds))));
        return line;
    }
}
