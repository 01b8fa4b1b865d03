package io.dask4j.examples;

import io.dask4j.array.ChunkSpec;
import io.dask4j.array.DArray;
import io.dask4j.array.DArrays;
import io.dask4j.launcher.LaunchEnvironment;
import io.dask4j.launcher.MpiCluster;
import io.dask4j.launcher.MpiClusterOptions;
import io.dask4j.runtime.client.Client;
import io.dask4j.runtime.cluster.LocalCluster;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeoutException;

/**
 * The seed workload on real data: reads an {@code n x n} Zarr array with the workers (each reads the chunks it
 * will hold; nothing passes through this program), persists it, and times {@code (x + x.T).transpose().sum()}
 * on it, beside the same expression on a random array made by the workers. If the directory holds no array
 * yet, the workers first write a random one there (uncompressed, 4096 x 4096 chunks, as Dask's {@code "auto"}
 * cuts 20000 x 20000 doubles); an array written by Python's {@code zarr} or {@code dask.array.to_zarr} reads
 * the same way.
 *
 * <pre>
 * CLASSPATH="$(./dask4j classpath):dask4j-examples/target/dask4j-examples-0.1.0-SNAPSHOT.jar" \
 *     mpirun -x CLASSPATH -np 5 "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED \
 *     --add-opens java.base/java.lang.invoke=ALL-UNNAMED io.dask4j.examples.ZarrSeed /scratch/x.zarr 20000
 * </pre>
 * Without an MPI launcher it runs on a local cluster of 3 worker processes over tcp.
 */
public final class ZarrSeed {
    private ZarrSeed() {
    }

    /** What one run measured: seconds to read and persist, seconds of the expression on the file and on random data. */
    public record Times(double readSeconds, double fileSeconds, double randomSeconds, double fileSum) {
    }

    public static void main(String[] args) throws TimeoutException {
        Path dir = Path.of(args.length > 0 ? args[0] : "seed.zarr").toAbsolutePath();
        int n = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
        if (LaunchEnvironment.detect().launcher().equals("none")) {
            try (LocalCluster cluster = LocalCluster.builder().workers(3).threadsPerWorker(1).processes(true).start();
                 Client client = cluster.client()) {
                report(run(client, dir, n), "a local cluster of 3 worker processes (tcp)");
            }
            return;
        }
        Client client = MpiCluster.initialize(MpiClusterOptions.defaults());
        report(run(client, dir, n), MpiCluster.workerRanks().size() + " MPI worker ranks");
    }

    /** Writes the array if {@code dir} has none, then reads it and times the expression on it and on random data. */
    public static Times run(Client client, Path dir, int n) throws TimeoutException {
        ChunkSpec chunks = ChunkSpec.of(Math.min(n, 4096));
        if (!Files.exists(dir.resolve(".zarray"))) {
            DArrays.random(n, n, chunks, 42).toZarr(client, dir);
        }
        long t0 = System.nanoTime();
        DArray x = DArrays.fromZarr(dir).persist(client).await(Duration.ofMinutes(10));
        double read = seconds(t0);
        t0 = System.nanoTime();
        double sum = x.add(x.T()).transpose().sum().compute(client);
        double onFile = seconds(t0);
        x.release();
        DArray r = DArrays.random(x.shape()[0], x.shape()[1], ChunkSpec.of(x.chunks().rowSize(0), x.chunks().colSize(0)), 42)
                .persist(client).await(Duration.ofMinutes(10));
        t0 = System.nanoTime();
        r.add(r.T()).transpose().sum().compute(client);
        double onRandom = seconds(t0);
        r.release();
        return new Times(read, onFile, onRandom, sum);
    }

    private static double seconds(long t0) {
        return (System.nanoTime() - t0) / 1e9;
    }

    private static void report(Times t, String where) {
        System.out.printf(Locale.ROOT, "read and persist: %.3f s; (x + x.T).transpose().sum() = %.6e in %.3f s "
                + "(on random data of the same shape: %.3f s), on %s%n", t.readSeconds(), t.fileSum(), t.fileSeconds(), t.randomSeconds(), where);
    }
}
