package io.dask4j.bench.tasks;

import io.dask4j.comm.JvmFlags;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dask4j.jobs.MpiJobOptions;
import io.dask4j.jobs.OptionChecks;
import io.dask4j.jobs.ProcessLayout;
import io.dask4j.comm.CommOptions;
import io.dask4j.runtime.client.Client;
import io.dask4j.runtime.client.DaskFuture;
import io.dask4j.runtime.client.TaskGraph;
import io.dask4j.runtime.cluster.LocalCluster;
import org.HdrHistogram.Histogram;
import java.io.PrintStream;
import io.dask4j.comm.stats.LatencyTrace;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.stream.Stream;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code dask4j bench tasks}: scheduler throughput and latency on a local cluster. Four workloads:
 * <ul>
 *   <li>{@code map}: N independent no-op tasks submitted with {@code client.map}, timed from submit
 *       until every task is done (Dask's usual measure, {@code wait(client.map(...))});</li>
 *   <li>{@code tree}: a binary reduction tree over N leaves (2N-1 tasks), timed until the root's value
 *       is back at the client;</li>
 *   <li>{@code round-trip}: one {@code submit -> result}, repeated {@code --rounds} times one after the other;
 *       the latencies go into an HdrHistogram, and the JSON has its p50, p99 and p99.9 in microseconds
 *       ({@code seconds} is the p50);</li>
 *   <li>{@code chain}: a graph of {@code --chain} tasks each taking the previous task's result, timed until
 *       the last value is back: latency-bound, every task waits for the one before it.</li>
 * </ul>
 * Each workload runs once to warm up and then {@code --repeat} times with fresh keys; the median run
 * is reported. inproc runs the workers in this JVM; tcp starts them as separate JVMs; mpi runs the whole
 * cluster as an {@code mpirun} job ({@link MpiTasksJob}: scheduler, client and workers each a rank, or with
 * {@code --client-rank 0} the client beside the scheduler on rank 0, talking over mpi, or over tcp with
 * {@code --protocol tcp} for a side-by-side figure). Goal
 * (docs/benchmarks.md): at least 50,000 no-op tasks/s with 2 workers x 1 thread over tcp.
 *
 * <p>With {@code --dashboard} the scheduler also serves its dashboard (on a free port) and a poller
 * fetches the JSON API every 500 ms as an open page would, to show what watching costs.
 *
 * <p>Prints a table, or with {@code --json} one JSON object per workload: {@code backend, workload, n,
 * tasks_per_s, seconds, dashboard, process_layout, processes} (and {@code client_rank} under mpi;
 * {@code latency_us_p50, latency_us_p99, latency_us_p999} for round-trip).
 */
@Command(name = "tasks", mixinStandardHelpOptions = true,
        description = "Measure scheduler throughput and latency (no-op map, tree reduction, round trips, a chain).")
public final class TasksBenchCommand implements Callable<Integer> {

    @Option(names = "--backend", defaultValue = "inproc", description = "inproc, tcp or mpi (default: ${DEFAULT-VALUE})")
    String backend;

    @CommandLine.Mixin
    MpiJobOptions mpiJob = new MpiJobOptions();

    /** Set on the ranks of the mpi job that {@link MpiTasksJob} starts. */
    @Option(names = "--in-mpi-job", hidden = true)
    boolean inMpiJob;

    @Option(names = "--mpi-logs", hidden = true)
    Path mpiLogs;

    @Option(names = "--workers", defaultValue = "2", description = "workers (default: ${DEFAULT-VALUE})")
    int workers;

    @Option(names = "--threads", defaultValue = "1", description = "threads per worker (default: ${DEFAULT-VALUE})")
    int threads;

    @Option(names = "--n", defaultValue = "100000", description = "tasks for map, leaves for tree (default: ${DEFAULT-VALUE})")
    int n;

    @Option(names = "--repeat", defaultValue = "3", description = "timed runs per workload, median reported (default: ${DEFAULT-VALUE})")
    int repeat;

    @Option(names = "--workload", split = ",", defaultValue = "map,tree,round-trip,chain",
            description = "workloads to run, comma-separated: map, tree, round-trip, chain (default: ${DEFAULT-VALUE})")
    List<String> workloadNames;

    @Option(names = "--rounds", defaultValue = "2000", description = "round-trip: timed submit -> result calls (default: ${DEFAULT-VALUE})")
    int rounds;

    @Option(names = "--chain", defaultValue = "10000", description = "chain: tasks in the chain (default: ${DEFAULT-VALUE})")
    int chain;

    @Option(names = "--json", description = "one JSON object per line instead of a table")
    boolean json;

    @Option(names = "--dashboard", description = "serve the dashboard, poll its JSON API every 500 ms as an open page does, and scrape its /metrics (Micrometer) every second")
    boolean dashboard;

    @Option(names = "--insecure-no-auth", description = "tcp: run the cluster WITHOUT authentication, to measure what it"
            + " costs (default: a generated secret, as users run it)")
    boolean insecureNoAuth;

    @Option(names = "--trace", paramLabel = "DIR", description = "round-trip: trace where each round trip's time goes"
            + " in every process of the cluster (inproc, or mpi with either --protocol), write the traces to DIR and"
            + " print the median time of each step; the tracing itself costs a little")
    Path trace;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private final PrintStream out;

    public TasksBenchCommand() {
        this(System.out);
    }

    TasksBenchCommand(PrintStream out) {
        this.out = out;
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new TasksBenchCommand()).execute(args));
    }

    /**
     * One measured workload. {@code latencyUs} holds p50, p99 and p99.9 in microseconds for round-trip, else
     * null; {@code layout} says which processes the cluster ran in.
     */
    record Result(String backend, String workload, int n, double tasksPerSecond, double seconds, boolean dashboard,
                  double[] latencyUs, ProcessLayout layout) {
        private static final ObjectMapper JSON = new ObjectMapper();

        Result withLayout(ProcessLayout l) {
            return new Result(backend, workload, n, tasksPerSecond, seconds, dashboard, latencyUs, l);
        }

        String toJson() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("backend", backend);
            m.put("workload", workload);
            m.put("n", n);
            m.put("tasks_per_s", Math.round(tasksPerSecond * 10) / 10.0);
            m.put("seconds", seconds);
            m.put("dashboard", dashboard);
            if (latencyUs != null) {
                m.put("latency_us_p50", latencyUs[0]);
                m.put("latency_us_p99", latencyUs[1]);
                m.put("latency_us_p999", latencyUs[2]);
            }
            if (layout != null) {
                layout.into(m);
            }
            try {
                return JSON.writeValueAsString(m);
            } catch (JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
        }

        static Result fromJson(String text) {
            try {
                Map<?, ?> m = JSON.readValue(text, Map.class);
                double[] latency = m.get("latency_us_p50") instanceof Number p50 ? new double[]{p50.doubleValue(),
                        ((Number) m.get("latency_us_p99")).doubleValue(), ((Number) m.get("latency_us_p999")).doubleValue()} : null;
                return new Result((String) m.get("backend"), (String) m.get("workload"), ((Number) m.get("n")).intValue(),
                        ((Number) m.get("tasks_per_s")).doubleValue(), ((Number) m.get("seconds")).doubleValue(),
                        (Boolean) m.get("dashboard"), latency, ProcessLayout.from(m));
            } catch (JsonProcessingException | ClassCastException | NullPointerException e) {
                throw new IllegalArgumentException("not a tasks result: " + text, e);
            }
        }
    }

    @Override
    public Integer call() throws Exception {
        String scheme = backend.toLowerCase(Locale.ROOT);
        if (!scheme.equals("inproc") && !scheme.equals("tcp") && !scheme.equals("mpi")) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--backend must be inproc, tcp or mpi");
        }
        // Refused, not raised: 0 workers hung (no worker to take a task) and 0 tasks failed on an empty tree.
        OptionChecks.atLeast(spec, "--workers", workers, 1);
        OptionChecks.atLeast(spec, "--threads", threads, 1);
        OptionChecks.atLeast(spec, "--n", n, 1);
        OptionChecks.atLeast(spec, "--repeat", repeat, 1);
        OptionChecks.atLeast(spec, "--rounds", rounds, 1);
        OptionChecks.atLeast(spec, "--chain", chain, 1);
        for (String w : workloadNames) {
            if (!WORKLOADS.contains(w)) {
                throw new CommandLine.ParameterException(spec.commandLine(), "unknown --workload '" + w + "': expected one of " + WORKLOADS);
            }
        }
        mpiJob.check(spec);
        if (trace != null && scheme.equals("tcp")) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--trace works with --backend inproc or mpi "
                    + "(for tcp between processes: --backend mpi --protocol tcp)");
        }
        if (inMpiJob) {
            return MpiTasksJob.runRank(this);
        }
        if (trace != null) {
            Files.createDirectories(trace);
        }
        if (scheme.equals("mpi")) {
            if (dashboard) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--dashboard works with inproc and tcp only");
            }
            List<Result> results = MpiTasksJob.launch(this);
            if (results == null) {
                return 1;
            }
            ProcessLayout layout = ProcessLayout.mpi(workers, mpiJob.clientRank);
            print(results.stream().map(r -> r.withLayout(layout)).toList(), "");
            printTrace();
            return 0;
        }
        LocalCluster.Builder builder = LocalCluster.builder().workers(workers).threadsPerWorker(threads)
                .processes(scheme.equals("tcp")).jvmArgs(Stream.concat(TasksJvm.OPTIONS.stream(), Stream.of(JvmFlags.OPEN_LAMBDAS)).toList());
        if (insecureNoAuth) {
            builder.options(CommOptions.defaults().withInsecureNoAuth(true));
        }
        if (dashboard) {
            builder.dashboardAddress("127.0.0.1:0");
        }
        List<Result> results = new ArrayList<>();
        String polled = "";
        startTrace();
        try (LocalCluster cluster = builder.start(); Client client = cluster.client()) {
            DashboardPoller poller = dashboard ? new DashboardPoller(cluster.dashboardUrl().orElseThrow()) : null;
            try {
                results.addAll(workloads(client, backend));
            } finally {
                if (poller != null) {
                    poller.close();
                    polled = "dashboard " + cluster.dashboardUrl().orElseThrow() + " polled every 500 ms: " + poller.report();
                    if (poller.failures() > 0) {
                        System.err.println("warning: " + polled);
                    }
                }
            }
        }
        ProcessLayout layout = ProcessLayout.of(scheme, workers, -1);
        print(results.stream().map(r -> r.withLayout(layout)).toList(), polled);
        stopTrace();
        printTrace();
        return 0;
    }

    /** Points kept per process with --trace: some 20 per round trip, warm-up included. */
    private static final int TRACE_POINTS = 2_000_000;

    /** With --trace: starts keeping this process's points (on an mpi rank, before it joins the cluster). */
    void startTrace() {
        if (trace != null) {
            LatencyTrace.enable(TRACE_POINTS);
            if (inMpiJob) {
                // The server ranks exit inside MpiCluster.execute: they write their points on the way out.
                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    try {
                        stopTrace();
                    } catch (java.io.IOException e) {
                        System.err.println("--trace: could not write this rank's trace: " + e);
                    }
                }, "dask4j-trace-dump"));
            }
        }
    }

    /** With --trace: writes this process's points into the trace directory. */
    void stopTrace() throws java.io.IOException {
        if (trace != null) {
            LatencyTrace.dump(trace.resolve("trace-" + ProcessHandle.current().pid() + ".txt"));
        }
    }

    private void printTrace() throws java.io.IOException {
        if (trace != null && !TraceBreakdown.print(trace, json ? System.err : out)) {
            System.err.println("--trace: no round trip was traced (it traces the round-trip workload)");
        }
    }

    static final List<String> WORKLOADS = List.of("map", "tree", "round-trip", "chain");

    /** The chosen workloads on {@code client}, in the order given, each labelled with {@code label} (the backend). */
    List<Result> workloads(Client client, String label) throws Exception {
        List<Result> results = new ArrayList<>();
        for (String w : workloadNames) {
            results.add(switch (w) {
                case "map" -> measure(label, "map", n, () -> map(client));
                case "tree" -> measure(label, "tree", 2 * n - 1, () -> tree(client));
                case "round-trip" -> roundTrip(client, label);
                case "chain" -> measure(label, "chain", chain, () -> chain(client));
                default -> throw new IllegalArgumentException("unknown workload " + w);
            });
        }
        return results;
    }

    private void print(List<Result> results, String polled) {
        if (!json) {
            out.printf(Locale.ROOT, "%-10s %-11s %9s %14s %12s%n", "backend", "workload", "n", "tasks/s", "seconds");
        }
        for (Result r : results) {
            out.println(json ? r.toJson() : String.format(Locale.ROOT, "%-10s %-11s %9d %14.0f %12.6f",
                    r.backend, r.workload, r.n, r.tasksPerSecond, r.seconds));
        }
        if (!json && !polled.isEmpty()) {
            out.println(polled);
        }
    }

    @FunctionalInterface
    private interface Run {
        double seconds() throws Exception;
    }

    private Result measure(String label, String workload, int tasks, Run run) throws Exception {
        run.seconds();
        double[] times = new double[repeat];
        for (int i = 0; i < times.length; i++) {
            times[i] = run.seconds();
        }
        Arrays.sort(times);
        double median = times[times.length / 2];
        return new Result(label, workload, tasks, tasks / median, median, dashboard, null, null);
    }

    private double map(Client client) throws Exception {
        List<Integer> items = IntStream.range(0, n).boxed().toList();
        long start = System.nanoTime();
        List<DaskFuture<Integer>> futures = client.map(x -> x, items);
        client.waitAll(futures, Duration.ofMinutes(10));
        double seconds = (System.nanoTime() - start) / 1e9;
        futures.forEach(DaskFuture::release);
        return seconds;
    }

    private int treeRun;

    private double tree(Client client) {
        String prefix = "tree" + (++treeRun) + "-";
        TaskGraph g = new TaskGraph();
        List<String> level = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            // A non-capturing lambda with an argument: one function for all leaves (as Dask's (leaf, i)).
            g.add(prefix + "leaf-" + i, (Long v) -> v, (long) i);
            level.add(prefix + "leaf-" + i);
        }
        int id = 0;
        while (level.size() > 1) {
            List<String> next = new ArrayList<>((level.size() + 1) / 2);
            for (int i = 0; i + 1 < level.size(); i += 2) {
                String k = prefix + "sum-" + id++;
                g.add(k, (Long a, Long b) -> a + b, TaskGraph.ref(level.get(i)), TaskGraph.ref(level.get(i + 1)));
                next.add(k);
            }
            if (level.size() % 2 == 1) {
                next.add(level.getLast());
            }
            level = next;
        }
        String root = level.getFirst();
        long start = System.nanoTime();
        Map<String, Object> result = client.compute(g, root);
        double seconds = (System.nanoTime() - start) / 1e9;
        long expected = (long) n * (n - 1) / 2;
        if (!Long.valueOf(expected).equals(result.get(root))) {
            throw new IllegalStateException("tree sum is " + result.get(root) + ", expected " + expected);
        }
        return seconds;
    }

    private int chainRun;

    /** A chain of {@code --chain} tasks, each adding one to the previous result; timed until the last value is back. */
    private double chain(Client client) {
        String prefix = "chain" + (++chainRun) + "-";
        TaskGraph g = new TaskGraph();
        g.add(prefix + 0, (Long v) -> v, 0L);
        for (int i = 1; i < chain; i++) {
            g.add(prefix + i, (Long v) -> v + 1, TaskGraph.ref(prefix + (i - 1)));
        }
        String last = prefix + (chain - 1);
        long start = System.nanoTime();
        Map<String, Object> result = client.compute(g, last);
        double seconds = (System.nanoTime() - start) / 1e9;
        if (!Long.valueOf(chain - 1).equals(result.get(last))) {
            throw new IllegalStateException("chain ends at " + result.get(last) + ", expected " + (chain - 1));
        }
        return seconds;
    }

    /**
     * {@code --rounds} sequential {@code submit -> result} calls (after an untimed warm-up of up to 10 s),
     * each recorded in an HdrHistogram to the microsecond.
     */
    private Result roundTrip(Client client, String label) {
        Histogram latency = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        // Warm-up by time as well as by count: the round trip's code is only compiled by C2 after some 10,000
        // calls, in every process of the cluster, and on a small machine their JIT threads share the cores: the
        // p50 of an mpi job on 2 cores kept falling for about 10 s (250 us after 3 s of warm-up, 140 us after 12 s).
        long warmupEnd = System.nanoTime() + WARMUP.toNanos();
        for (int i = 0; i < WARMUP_ROUNDS && (i < 50 || System.nanoTime() - warmupEnd < 0); i++) {
            roundTrip(client, i);
        }
        for (int i = 0; i < rounds; i++) {
            long start = System.nanoTime();
            LatencyTrace.mark(TraceBreakdown.START);
            roundTrip(client, i);
            LatencyTrace.mark(TraceBreakdown.END);
            latency.recordValue(Math.min(System.nanoTime() - start, latency.getHighestTrackableValue()));
        }
        double[] us = {latency.getValueAtPercentile(50) / 1e3, latency.getValueAtPercentile(99) / 1e3,
                latency.getValueAtPercentile(99.9) / 1e3};
        return new Result(label, "round-trip", rounds, 1e6 / us[0], us[0] / 1e6, dashboard, us, null);
    }

    /** Untimed round trips before the timed ones: at most this many, and no more once {@link #WARMUP} has passed. */
    private static final int WARMUP_ROUNDS = 100_000;
    private static final Duration WARMUP = Duration.ofSeconds(10);

    private static void roundTrip(Client client, int x) {
        DaskFuture<Integer> f = client.submit((Integer v) -> v + 1, x);
        if (f.result() != x + 1) {
            throw new IllegalStateException("wrong round-trip result");
        }
        f.release();
    }
}
