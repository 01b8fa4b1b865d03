package io.dask4j.bench.comm;

import io.dask4j.bench.PingPongOptions;
import io.dask4j.comm.Address;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommOptions;
import java.util.stream.Stream;
import java.util.Comparator;
import java.nio.file.Path;
import java.nio.file.Files;
import io.dask4j.comm.TlsOptions;
import io.dask4j.comm.TlsEnvironment;
import io.dask4j.comm.SelfSignedTls;
import io.dask4j.comm.Comms;
import io.dask4j.comm.Listener;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code dask4j bench comm}: one-way latency (half a ping-pong round trip, median and p99) and bandwidth
 * (payload bytes over the median one-way time) of the comm layer, for 8 B, 1 KiB, 1 MiB, 16 MiB and 64 MiB
 * messages (one frame each). tcp runs between this JVM and a second one started with the same java
 * binary and class path; inproc runs between two threads of this JVM. Goals
 * (docs/benchmarks.md): tcp at most 20 us one-way at 8 B, at least
 * 2 GB/s at 64 MiB.
 *
 * <p>{@code --receive} names how both ends read (see {@link ReceiveMode}): {@code read} (the default), {@code push}
 * (the transport's push mode, the ping-pong driven from inside the handler as an event loop would), {@code
 * push-virtual} (push through the SPI's default read loop on a virtual thread). Several, e.g. {@code
 * read,push,read}, each get their own comm and run interleaved in blocks; naming one twice gives an A/A pair.
 *
 * <p>Prints a table, or with {@code --json} one JSON object per size and mode: {@code backend, size_bytes,
 * iterations, latency_us_median, latency_us_p99, bandwidth_gbps, receive} (gigabytes, 10^9 bytes, per second).
 */
@Command(name = "comm", mixinStandardHelpOptions = true,
        description = "Measure comm latency and bandwidth (ping-pong) for the tcp, tls or inproc backend.")
public final class CommBenchCommand implements Callable<Integer> {

    @Option(names = "--backend", defaultValue = "tcp", description = "tcp, tls or inproc (default: ${DEFAULT-VALUE}); "
            + "tls uses the DASK4J_TLS_* settings, else a self-signed certificate made for the run")
    String backend;

    @Option(names = "--receive", split = ",", defaultValue = "read", paramLabel = "MODE",
            description = "how both ends read: read, push, push-virtual; several run interleaved (default: ${DEFAULT-VALUE})")
    List<String> receive;

    @Mixin
    PingPongOptions pingPong = new PingPongOptions();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private final PrintStream out;

    public CommBenchCommand() {
        this(System.out);
    }

    CommBenchCommand(PrintStream out) {
        this.out = out;
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new CommBenchCommand()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        pingPong.check(spec);
        // Authenticated as users run it: the echo process gets the generated secret in its environment.
        CommOptions options = CommOptions.defaults().withGeneratedSecret().withIdentity("bench-client")
                .withConnectTimeout(Duration.ofSeconds(30));
        List<PingPong.Result> results = new ArrayList<>();
        switch (backend.toLowerCase(Locale.ROOT)) {
            case "inproc" -> {
                Listener listener = CommEchoServer.start(Address.inproc("bench-*"), options);
                try {
                    runAll(listener.contactAddress(), options, results);
                } finally {
                    listener.stop();
                }
            }
            case "tcp" -> runAgainstEchoProcess("tcp", options, results);
            case "tls" -> {
                Path certificate = options.tls() == null ? Files.createTempDirectory("dask4j-bench-tls-") : null;
                try {
                    CommOptions tls = certificate == null ? options : options.withTls(
                            TlsOptions.of(SelfSignedTls.create(certificate.resolve("certificate")).keyStores()));
                    runAgainstEchoProcess("tls", tls, results);
                } finally {
                    if (certificate != null) {
                        deleteTree(certificate);
                    }
                }
            }
            default -> throw new CommandLine.ParameterException(spec.commandLine(),
                    "unknown --backend '" + backend + "': expected tcp, tls or inproc");
        }
        return 0;
    }

    private void runAll(Address server, CommOptions options, List<PingPong.Result> results) throws InterruptedException {
        List<RoundTrips> comms = new ArrayList<>();
        try {
            for (String label : labels()) {
                ReceiveMode mode = ReceiveMode.parse(label.replaceAll("#\\d+$", ""));
                Comm comm = Comms.connect(server, options.withIdentity(mode.clientIdentity()));
                comms.add(RoundTrips.open(label, mode, comm));
            }
            if (!pingPong.json) {
                out.printf("%-7s %-13s %10s %8s %14s %14s %12s%n", "backend", "receive", "size", "rounds", "one-way p50",
                        "one-way p99", "bandwidth");
            }
            for (long size : pingPong.sizesOrDefault()) {
                int rounds = roundsFor(size);
                for (PingPong.Result r : PingPong.run(comms, backend, size, warmupFor(size, rounds), rounds)) {
                    results.add(r);
                    out.println(pingPong.json ? r.toJson() : r.toRow());
                }
                out.flush();
            }
        } finally {
            for (RoundTrips c : comms) {
                c.comm().close();
            }
        }
    }

    /** The --receive modes, a repeated one numbered (read, push, read#2). */
    private List<String> labels() {
        List<String> labels = new ArrayList<>();
        for (String mode : receive) {
            try {
                ReceiveMode.parse(mode);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
            }
            String label = mode.strip().toLowerCase(Locale.ROOT);
            long seen = labels.stream().filter(l -> l.replaceAll("#\\d+$", "").equals(label)).count();
            labels.add(seen == 0 ? label : label + "#" + (seen + 1));
        }
        return labels;
    }

    /** Small sizes get --iterations round trips; large ones about 1 GiB of traffic each way, at least 10. */
    int roundsFor(long size) {
        long byBudget = (1L << 30) / Math.max(size, 1);
        return (int) Math.max(10, Math.min(pingPong.iterations, byBudget));
    }

    /**
     * At least a tenth of the rounds and 512 MiB of traffic: the first large receive buffers land on fresh
     * pages of a growing heap, which cost 12-20 us per 4 KiB here (a first {@code new byte[64 MiB]} took
     * ~0.5 s, a later one ~6 ms), so a short warm-up measures the OS, not the comm.
     */
    static int warmupFor(long size, int rounds) {
        long byTraffic = (512L << 20) / Math.max(size, 1);
        return (int) Math.min(rounds, Math.max(2, Math.max(rounds / 10, byTraffic)));
    }

    private void runAgainstEchoProcess(String scheme, CommOptions options, List<PingPong.Result> results)
            throws IOException, InterruptedException {
        Process echo = startEchoProcess(scheme, options);
        try {
            runAll(readAddress(echo), options, results);
        } finally {
            stop(echo);
        }
    }

    private static Process startEchoProcess(String scheme, CommOptions options) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        ProcessBuilder pb = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                CommEchoServer.class.getName(), scheme + "://127.0.0.1:0");
        pb.redirectError(ProcessBuilder.Redirect.INHERIT);
        pb.environment().put(CommOptions.SECRET_ENV, options.secretText());
        if (options.tls() != null) {
            pb.environment().putAll(TlsEnvironment.variables(options.tls()));
        }
        Process p = pb.start();
        Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly));
        return p;
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    private static Address readAddress(Process echo) throws IOException {
        BufferedReader reader = new BufferedReader(new InputStreamReader(echo.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = reader.readLine()) != null) {
            if (line.startsWith(CommEchoServer.READY)) {
                return Address.parse(line.substring(CommEchoServer.READY.length()).strip());
            }
        }
        throw new IOException("the echo process exited before listening (exit code "
                + (echo.isAlive() ? "none yet" : echo.exitValue()) + ")");
    }

    private static void stop(Process echo) throws InterruptedException {
        try {
            echo.getOutputStream().close();
        } catch (IOException ignored) {
            // it is going away anyway
        }
        if (!echo.waitFor(5, TimeUnit.SECONDS)) {
            echo.destroyForcibly();
        }
    }
}
