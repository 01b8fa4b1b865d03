package io.dask4j.examples;

import io.dask4j.runtime.cluster.LocalCluster;
import io.dask4j.runtime.client.Client;
import io.dask4j.runtime.client.DaskFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MonteCarloPiTest {

    @Test
    void theEstimateOnALocalClusterIsCloseToPi() {
        try (Client client = LocalCluster.startClient(2, 1)) {
            assertThat(MonteCarloPi.estimate(client, 200_000, 8)).isBetween(3.10, 3.18);
        }
    }

    @Test
    void theTreeSumAddsAnOddNumberOfFuturesExactly() {
        try (Client client = LocalCluster.startClient(2, 1)) {
            List<DaskFuture<Long>> values = client.map((Integer x) -> (long) x, IntStream.rangeClosed(1, 7).boxed().toList());
            assertThat(MonteCarloPi.treeSum(client, values).result()).isEqualTo(28L);
        }
    }

    @Test
    void hitsAreReproducibleForASeed() {
        assertThat(MonteCarloPi.hits(3, 10_000)).isEqualTo(MonteCarloPi.hits(3, 10_000)).isBetween(7_500L, 8_200L);
    }
}
