package io.dask4j.runtime.client;

import io.dask4j.runtime.cluster.LocalCluster;
import io.dask4j.runtime.worker.Worker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/** Workers past their memory limit spill results to disk and the results come back identical. */
@Timeout(60)
class SpillTest {
    @TempDir
    Path dir;

    @Test
    void resultsAreIdenticalAfterSpillingAndReloading() throws Exception {
        try (LocalCluster cluster = LocalCluster.builder().workers(2).threadsPerWorker(1).memoryLimit(1_000_000)
                .localDirectory(dir).start(); Client client = cluster.client()) {
            List<DaskFuture<double[]>> blocks = client.map(i -> {
                double[] a = new double[50_000];
                for (int j = 0; j < a.length; j++) {
                    a[j] = i * 1e6 + j;
                }
                return a;
            }, IntStream.range(0, 12).boxed().toList());
            client.waitAll(blocks, java.time.Duration.ofSeconds(30));
            long spilled = cluster.workers().stream().mapToLong(w -> w.stats().spillCount()).sum();
            assertThat(spilled).as("values spilled to disk").isPositive();
            DaskFuture<Double> total = client.submit((List<double[]> xs) -> xs.stream()
                    .mapToDouble(a -> java.util.Arrays.stream(a).sum()).sum(), blocks);
            double expected = 0;
            for (int i = 0; i < 12; i++) {
                for (int j = 0; j < 50_000; j++) {
                    expected += i * 1e6 + j;
                }
            }
            assertThat(total.result()).isEqualTo(expected);
            List<double[]> back = client.gather(blocks);
            for (int i = 0; i < 12; i++) {
                assertThat(back.get(i)[49_999]).isEqualTo(i * 1e6 + 49_999);
            }
            assertThat(cluster.workers().stream().mapToLong(w -> w.stats().unspillCount()).sum())
                    .as("values read back from disk").isPositive();
            for (Worker w : cluster.workers()) {
                assertThat(w.stats().memoryBytes()).isLessThanOrEqualTo(1_000_000);
            }
        }
    }
}
