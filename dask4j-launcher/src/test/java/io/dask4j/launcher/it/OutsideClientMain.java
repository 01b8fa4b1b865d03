package io.dask4j.launcher.it;

import io.dask4j.mpi.MpiRuntime;
import io.dask4j.runtime.client.Client;
import io.dask4j.runtime.client.DaskFuture;

import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.IntStream;

/** A client outside the MPI job: connects through the scheduler file's tcp address and prints what it computed. */
public final class OutsideClientMain {
    private OutsideClientMain() {
    }

    public static void main(String[] args) {
        // The scheduler file gives the outside-reachable address first, and the job's secret.
        try (Client client = Client.connect(Path.of(args[0]))) {
            System.out.println("OUTSIDE " + compute(client));
        }
    }

    /** Squares summed on the workers, and the MPI ranks of the workers that ran tasks. */
    public static String compute(Client client) {
        List<DaskFuture<Long>> squares = client.map((Integer x) -> (long) x * x, IntStream.rangeClosed(1, 100).boxed().toList());
        long sum = client.gather(squares).stream().mapToLong(Long::longValue).sum();
        DaskFuture<Long> total = client.submit((List<Long> xs) -> xs.stream().mapToLong(Long::longValue).sum(), squares);
        List<DaskFuture<Integer>> ranks = client.map((Integer x) -> MpiRuntime.current().rank(), IntStream.range(0, 20).boxed().toList());
        return "sum=" + sum + " tree=" + total.result() + " ranks=" + new TreeSet<>(client.gather(ranks));
    }
}
