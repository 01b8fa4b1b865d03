package io.dask4j.examples;

import io.dask4j.runtime.cluster.LocalCluster;
import io.dask4j.launcher.LaunchEnvironment;
import io.dask4j.launcher.MpiCluster;
import io.dask4j.launcher.MpiClusterOptions;
import io.dask4j.runtime.client.Client;
import io.dask4j.runtime.client.DaskFuture;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

/**
 * A user program on dask4j: estimates pi by Monte Carlo. Each task throws darts with its own seeded
 * generator and counts the hits inside the unit circle (a map over the workers); the counts are summed by
 * a tree of pairwise additions that run on the workers too (the values move from worker to worker, never
 * through the client); the client only fetches the final count.
 *
 * <pre>
 * CLASSPATH="$(./dask4j classpath):dask4j-examples/target/dask4j-examples-0.1.0-SNAPSHOT.jar" \
 *     mpirun -x CLASSPATH -np 5 "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED \
 *     --add-opens java.base/java.lang.invoke=ALL-UNNAMED io.dask4j.examples.MonteCarloPi [SAMPLES_PER_TASK] [TASKS]
 * </pre>
 * with {@code JAVA_HOME} a JDK 25, and the class path in {@code CLASSPATH}, not {@code --class-path}, which Open
 * MPI's mpirun can mangle (see dask4j-examples/README.md).
 * Under mpirun, rank 0 is the scheduler, rank 1 runs this main() past {@link MpiCluster#initialize} and
 * the other ranks are workers. Started without an MPI launcher it runs on a local cluster of 3 workers.
 */
public final class MonteCarloPi {
    private MonteCarloPi() {
    }

    public static void main(String[] args) {
        long samplesPerTask = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000;
        int tasks = args.length > 1 ? Integer.parseInt(args[1]) : 32;
        if (LaunchEnvironment.detect().launcher().equals("none")) {
            try (Client client = LocalCluster.startClient(3, 1)) {
                report(estimate(client, samplesPerTask, tasks), samplesPerTask * tasks, "a local cluster of 3 workers");
            }
            return;
        }
        Client client = MpiCluster.initialize(MpiClusterOptions.defaults());
        double pi = estimate(client, samplesPerTask, tasks);
        report(pi, samplesPerTask * tasks, MpiCluster.workerRanks().size() + " MPI worker ranks " + MpiCluster.workerRanks());
    }

    /** Estimates pi with {@code tasks} tasks of {@code samplesPerTask} darts each on {@code client}'s cluster. */
    public static double estimate(Client client, long samplesPerTask, int tasks) {
        List<DaskFuture<Long>> counts = client.map((Integer seed) -> hits(seed, samplesPerTask),
                IntStream.range(0, tasks).boxed().toList());
        DaskFuture<Long> total = treeSum(client, counts);
        return 4.0 * total.result() / ((double) samplesPerTask * tasks);
    }

    /** Sums futures pairwise, level by level, on the workers. */
    static DaskFuture<Long> treeSum(Client client, List<DaskFuture<Long>> level) {
        while (level.size() > 1) {
            List<DaskFuture<Long>> next = new ArrayList<>();
            for (int i = 0; i + 1 < level.size(); i += 2) {
                next.add(client.submit((Long a, Long b) -> a + b, level.get(i), level.get(i + 1)));
            }
            if (level.size() % 2 == 1) {
                next.add(level.getLast());
            }
            level = next;
        }
        return level.getFirst();
    }

    /** Darts inside the unit quarter circle out of {@code samples}, from a generator seeded with {@code seed}. */
    static long hits(int seed, long samples) {
        SplittableRandom random = new SplittableRandom(0x9E3779B97F4A7C15L * (seed + 1));
        long inside = 0;
        for (long i = 0; i < samples; i++) {
            double x = random.nextDouble();
            double y = random.nextDouble();
            if (x * x + y * y <= 1.0) {
                inside++;
            }
        }
        return inside;
    }

    private static void report(double pi, long samples, String where) {
        System.out.printf("pi ~ %.6f (error %.1e) from %,d samples on %s%n", pi, Math.abs(pi - Math.PI), samples, where);
    }
}
