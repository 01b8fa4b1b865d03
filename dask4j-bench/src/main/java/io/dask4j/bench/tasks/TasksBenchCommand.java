package io.dask4j.bench.tasks;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dask4j.bench.MpiJobOptions;
import io.dask4j.bench.OptionChecks;
import io.dask4j.launcher.OpenMpiArguments;
import io.dask4j.runtime.client.Client;
import io.dask4j.runtime.client.DaskFuture;
import io.dask4j.runtime.client.TaskGraph;
import io.dask4j.runtime.cluster.LocalCluster;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.IntStream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code dask4j bench tasks}: scheduler throughput on a local cluster. Three workloads:
 * <ul>
 *   <li>{@code map}: N independent no-op tasks submitted with {@code client.map}, timed from submit
 *       until every task is done (Dask's usual measure, {@code wait(client.map(...))});</li>
 *   <li>{@code tree}: a binary reduction tree over N leaves (2N-1 tasks), timed until the root's value
 *       is back at the client;</li>
 *   <li>{@code round-trip}: one {@code submit -> result}, repeated; {@code seconds} is the median.</li>
 * </ul>
 * Each workload runs once to warm up and then {@code --repeat} times with fresh keys; the median run
 * is reported. inproc runs the workers in this JVM; tcp starts them as separate JVMs; mpi runs the whole
 * cluster as an {@code mpirun} job ({@link MpiTasksJob}: scheduler, client and workers each a rank, talking
 * over mpi, or over tcp with {@code --protocol tcp} for a side-by-side figure). Goal (DESIGN.md §8,
 * external design notes; the README's figures table repeats it): at least 50,000 no-op tasks/s with 2 workers
 * x 1 thread over tcp.
 *
 * <p>With {@code --dashboard} the scheduler also serves its dashboard (on a free port) and a poller
 * fetches the JSON API every 500 ms as an open page would, to show what watching costs.
 *
 * <p>Prints a table, or with {@code --json} one JSON object per workload: {@code backend, workload, n,
 * tasks_per_s, seconds, dashboard}.
 */
@Command(name = "tasks", mixinStandardHelpOptions = true,
        description = "Measure scheduler throughput (no-op map, binary tree reduction, single round trip).")
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

    @Option(names = "--json", description = "one JSON object per line instead of a table")
    boolean json;

    @Option(names = "--dashboard", description = "serve the dashboard and poll its JSON API every 500 ms, as an open page does")
    boolean dashboard;

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
        // On a rank of the mpi job, Open MPI's mpirun may have rewritten an argument (see OpenMpiArguments).
        System.exit(new CommandLine(new TasksBenchCommand()).execute(OpenMpiArguments.repair(args)));
    }

    /** One measured workload. */
    record Result(String backend, String workload, int n, double tasksPerSecond, double seconds, boolean dashboard) {
        private static final ObjectMapper JSON = new ObjectMapper();

        String toJson() {
            return String.format(Locale.ROOT, "{\"backend\":\"%s\",\"workload\":\"%s\",\"n\":%d,\"tasks_per_s\":%.1f,\"seconds\":%.6f,\"dashboard\":%b}",
                    backend, workload, n, tasksPerSecond, seconds, dashboard);
        }

        static Result fromJson(String text) {
            try {
                Map<?, ?> m = JSON.readValue(text, Map.class);
                return new Result((String) m.get("backend"), (String) m.get("workload"), ((Number) m.get("n")).intValue(),
                        ((Number) m.get("tasks_per_s")).doubleValue(), ((Number) m.get("seconds")).doubleValue(),
                        (Boolean) m.get("dashboard"));
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
        mpiJob.check(spec);
        if (inMpiJob) {
            return MpiTasksJob.runRank(this);
        }
        if (scheme.equals("mpi")) {
            if (dashboard) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--dashboard works with inproc and tcp only");
            }
            List<Result> results = MpiTasksJob.launch(this);
            if (results == null) {
                return 1;
            }
            print(results, "");
            return 0;
        }
        LocalCluster.Builder builder = LocalCluster.builder().workers(workers).threadsPerWorker(threads)
                .processes(scheme.equals("tcp")).jvmArgs(List.of("-XX:+UseSerialGC", "-Xss1m", LocalCluster.OPEN_LAMBDAS));
        if (dashboard) {
            builder.dashboardAddress("127.0.0.1:0");
        }
        List<Result> results = new ArrayList<>();
        String polled = "";
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
        print(results, polled);
        return 0;
    }

    /** The three workloads on {@code client}, each labelled with {@code label} (the backend). */
    List<Result> workloads(Client client, String label) throws Exception {
        return List.of(measure(label, "map", n, () -> map(client)), measure(label, "tree", 2 * n - 1, () -> tree(client)),
                roundTrip(client, label));
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
        return new Result(label, workload, tasks, tasks / median, median, dashboard);
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

    private Result roundTrip(Client client, String label) {
        int rounds = 300;
        double[] times = new double[rounds];
        for (int i = -50; i < rounds; i++) {
            int x = i;
            long start = System.nanoTime();
            DaskFuture<Integer> f = client.submit((Integer v) -> v + 1, x);
            if (f.result() != x + 1) {
                throw new IllegalStateException("wrong round-trip result");
            }
            f.release();
            if (i >= 0) {
                times[i] = (System.nanoTime() - start) / 1e9;
            }
        }
        Arrays.sort(times);
        double median = times[rounds / 2];
        return new Result(label, "round-trip", 1, 1 / median, median, dashboard);
    }
}
