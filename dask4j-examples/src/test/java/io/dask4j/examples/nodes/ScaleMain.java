package io.dask4j.examples.nodes;

import io.dask4j.launcher.MpiCluster;
import io.dask4j.launcher.MpiClusterOptions;
import io.dask4j.runtime.client.Client;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;

/**
 * A user program for the scale test: {@code ScaleMain LOGDIR N CHUNK RELEASE}. From the client rank it prints
 * {@code READY at=<epoch ms> workers=<count>} once {@link MpiCluster#initialize} returned (every worker
 * registered), then runs the seed workload, {@code (x + x.T).transpose().sum()} over an {@code N x N} array of
 * {@code CHUNK x CHUNK} blocks laid out row-major over the workers, prints {@code SEED sum=<sum> at=<epoch ms>},
 * and waits until the file {@code RELEASE} exists before it returns from main (and the job shuts down), so that
 * the test can look at the ranks while the cluster is still up.
 */
public final class ScaleMain {
    private ScaleMain() {
    }

    public static void main(String[] args) throws Exception {
        Client client = MpiCluster.initialize(MpiClusterOptions.defaults().withLogDirectory(Path.of(args[0])).withThreads(1));
        System.out.println("READY at=" + System.currentTimeMillis() + " workers=" + MpiCluster.workerRanks().size());
        double sum = NodesMain.seedSum(client, Integer.parseInt(args[1]), Integer.parseInt(args[2]));
        System.out.printf(Locale.ROOT, "SEED sum=%.17g at=%d%n", sum, System.currentTimeMillis());
        System.out.flush();
        Path release = Path.of(args[3]);
        // The test creates the file once it has measured the running cluster; a bound, so that a test that
        // died does not leave the job waiting.
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (!Files.exists(release) && System.nanoTime() - deadline < 0) {
            Thread.sleep(50);
        }
    }
}
