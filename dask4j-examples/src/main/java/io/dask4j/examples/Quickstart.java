package io.dask4j.examples;

import io.dask4j.runtime.cluster.LocalCluster;
import io.dask4j.array.ChunkSpec;
import io.dask4j.array.DArray;
import io.dask4j.array.DArrays;
import io.dask4j.runtime.client.Client;
import io.dask4j.runtime.client.DaskFuture;
import io.dask4j.runtime.client.TaskGraph;
import java.util.List;
import java.util.Map;

/**
 * The README's quick start, kept here so that it compiles and a test runs it: futures, a map, a
 * hand-built task graph and a distributed array on an in-process cluster of 2 workers x 2 threads.
 * Replace {@code LocalCluster.startClient(2, 2)} with {@code Client.connect(Path.of("scheduler.json"))} to use a
 * running cluster (the scheduler file holds its address and its secret), or with {@code MpiCluster.initialize()} under mpirun (see {@link MonteCarloPi}).
 */
public final class Quickstart {
    private Quickstart() {
    }

    public static void main(String[] args) {
        try (Client client = LocalCluster.startClient(2, 2)) {
            // Futures: submit a function, pass futures on as arguments, get results back.
            DaskFuture<Integer> a = client.submit((Integer x) -> x + 1, 41);
            DaskFuture<Integer> b = client.submit((Integer x, Integer y) -> x * y, a, 2);
            System.out.println("b = " + b.result());                                // 84

            // A map over many items, gathered in order.
            List<DaskFuture<Integer>> squares = client.map((Integer x) -> x * x, List.of(1, 2, 3, 4));
            System.out.println("squares = " + client.gather(squares));              // [1, 4, 9, 16]

            // A whole task graph at once; compute brings the outputs back.
            TaskGraph graph = new TaskGraph()
                    .add("x", () -> 10)
                    .add("y", (Integer x) -> x * 3, TaskGraph.ref("x"))
                    .add("z", (Integer x, Integer y) -> x + y, TaskGraph.ref("x"), TaskGraph.ref("y"));
            Map<String, Object> out = client.compute(graph, "z");
            System.out.println("z = " + out.get("z"));                              // 40

            // A distributed array: chunks live on the workers and move between them as raw frames.
            DArray x = DArrays.random(2_000, 2_000, ChunkSpec.of(500), 42).persist(client);
            double total = x.add(x.T()).transpose().sum().compute(client);
            System.out.printf("sum of (x + x.T).T = %.6f over %s%n", total, x);
        }
    }
}
