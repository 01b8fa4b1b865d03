package io.dask4j.examples;

import io.dask4j.array.ChunkSpec;
import io.dask4j.array.DArray;
import io.dask4j.array.DArrays;
import io.dask4j.array.Matrix;
import io.dask4j.runtime.client.Client;
import io.dask4j.runtime.client.DaskFuture;
import io.dask4j.runtime.client.RemoteTaskException;
import io.dask4j.runtime.client.TaskGraph;
import io.dask4j.runtime.cluster.LocalCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.stream.LongStream;

/**
 * The examples of docs/user-guide.md, one method per section, kept here so that a test runs them and checks what
 * their comments promise (UserGuideTest also checks that every Java block of the guide is a copy of text in this
 * file). Each method takes a client of a running cluster and is called from the client's thread.
 */
public final class UserGuide {
    private UserGuide() {
    }

    /** Runs every section on an in-process cluster of 2 workers x 2 threads. */
    public static void main(String[] args) throws Exception {
        try (Client client = LocalCluster.startClient(2, 2)) {   // or Client.connect(Path.of("scheduler.json"))
            // First: its counts of held keys are exact only while no other future of this client can be
            // collected meanwhile (a future that becomes unreachable releases its key, at a time the GC picks).
            releasing(client);
            futures(client);
            waiting(client);
            graphs(client);
            arrays(client);
            errors(client);
        }
    }

    static void futures(Client client) throws Exception {
        DaskFuture<Integer> a = client.submit((Integer x) -> x + 1, 41);
        DaskFuture<Integer> b = client.submit((Integer x, Integer y) -> x * y, a, 2); // a's value: worker to worker
        System.out.println("b = " + b.result());                                         // b = 84

        List<DaskFuture<Integer>> squares = client.map((Integer x) -> x * x, List.of(1, 2, 3, 4));
        System.out.println("squares = " + client.gather(squares));                       // squares = [1, 4, 9, 16]

        DaskFuture<double[]> weights = client.scatter(new double[] {0.5, 0.25, 0.25});   // sent to a worker once
        List<DaskFuture<Double>> scores = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            scores.add(client.submit((double[] w, Integer k) -> k * w[0] + w[1] + w[2], weights, i));
        }
        System.out.println("scores = " + client.gather(scores));                         // scores = [1.0, 1.5, 2.0]

        CompletableFuture<String> text = b.thenApply(v -> "b is " + v);  // runs on the client, not on a worker
        System.out.println(text.join());                                                 // b is 84
    }

    static void waiting(Client client) throws Exception {
        List<DaskFuture<Long>> sums = client.map((Integer n) -> LongStream.rangeClosed(1, n).sum(),
                List.of(1_000_000, 10, 1_000));
        client.waitAll(sums, Duration.ofMinutes(1));              // a TimeoutException if they take longer
        long total = 0;
        for (DaskFuture<Long> f : client.asCompleted(sums)) {     // in the order they finish
            total += f.result();
        }
        System.out.println("total = " + total);                   // total = 500001000555
        DaskFuture<Long> first = client.waitAny(sums, Duration.ofSeconds(30));
        System.out.println("first done: " + first.isDone());      // first done: true
    }

    static void graphs(Client client) {
        TaskGraph graph = new TaskGraph()
                .add("a", () -> 10)
                .add("b", () -> 32)
                .add("c", () -> 58)
                .add("sum", (Integer a, Integer b) -> a + b, TaskGraph.ref("a"), TaskGraph.ref("b"))
                .add("mean", args -> ((Integer) args[0] + (Integer) args[1] + (Integer) args[2]) / 3.0,
                        TaskGraph.ref("a"), TaskGraph.ref("b"), TaskGraph.ref("c"))
                .add("unused", () -> "not run: no output needs it");
        Map<String, Object> out = client.compute(graph, "sum", "mean");  // runs a, b, c, sum, mean; releases them
        System.out.println(out);                                          // {sum=42, mean=33.333333333333336}

        Map<String, DaskFuture<Object>> kept = client.persist(graph, "sum");  // the result stays on a worker
        DaskFuture<Integer> twice = client.submit((Integer s) -> 2 * s, kept.get("sum"));
        System.out.println("twice = " + twice.result());                  // twice = 84
    }

    static void arrays(Client client) {
        DArray x = DArrays.random(1_000, 1_000, ChunkSpec.of(250), 42);   // 16 blocks; nothing computed yet
        DArray y = x.add(x.T()).multiply(0.5);                             // lazy: builds a task graph
        DArray kept = y.persist(client);                                   // computes it, blocks stay on the workers

        double mean = kept.mean().compute(client);                         // a scalar comes back
        double[] columnMax = kept.max(0).computeVector(client);            // one value per column
        Matrix corner = kept.slice(0, 2, 0, 2).compute(client);            // a small piece comes back
        System.out.printf("mean %.2f, %d column maxima, symmetric: %b%n",  // mean 0.50, 1000 column maxima, ...
                mean, columnMax.length, corner.get(0, 1) == corner.get(1, 0));  // ... symmetric: true
        kept.release();                                                    // the workers may drop its blocks
    }

    static void errors(Client client) throws Exception {
        DaskFuture<Integer> bad = client.submit((Integer x) -> 10 / x, 0);
        DaskFuture<Integer> after = client.submit((Integer x) -> x + 1, bad);   // depends on the failing task
        try {
            after.result();
        } catch (RemoteTaskException e) {
            System.out.println(e.remoteType());                  // java.lang.ArithmeticException
            System.out.println(e.remoteMessage());               // / by zero
            System.out.println(e.failedKey().equals(bad.key())); // true: the task whose code threw
            // e.worker() names the worker that ran it; e.getCause() carries the worker's stack trace
        }
        System.out.println(bad.status());                        // ERROR
        System.out.println(bad.exception().getClass().getSimpleName());  // RemoteTaskException, not thrown

        try {
            bad.get();                                           // the java.util.concurrent.Future way
        } catch (ExecutionException e) {
            System.out.println(e.getCause() instanceof RemoteTaskException);  // true
        }
        try {
            bad.join();                                          // the CompletableFuture way
        } catch (CompletionException e) {
            System.out.println(e.getCause() instanceof RemoteTaskException);  // true
        }
    }

    static void releasing(Client client) {
        int before = client.heldKeys();
        DaskFuture<double[]> big = client.submit(() -> new double[1_000_000]);
        System.out.println(big.result().length);                 // 1000000
        System.out.println(client.heldKeys() - before);          // 1: the cluster keeps big's value
        big.release();                                           // the cluster may forget it now
        System.out.println(client.heldKeys() - before);          // 0
        try {
            big.result();
        } catch (IllegalStateException e) {
            System.out.println("released: " + e.getMessage());   // released: future ... was released; ...
        }
    }
}
