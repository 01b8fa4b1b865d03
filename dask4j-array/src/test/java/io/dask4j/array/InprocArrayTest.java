package io.dask4j.array;

import static org.assertj.core.api.Assertions.assertThat;

import io.dask4j.runtime.client.Client;
import io.dask4j.runtime.cluster.LocalCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.time.Duration;

/** The array contract ({@link ArrayContract}) on an in-process cluster of 3 workers x 1 thread (inproc comms). */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InprocArrayTest extends ArrayContract {
    private LocalCluster cluster;
    private Client client;

    @BeforeAll
    void startCluster() {
        cluster = LocalCluster.builder().workers(3).threadsPerWorker(1).start();
        client = cluster.client();
    }

    @AfterAll
    void stopCluster() {
        if (client != null) {
            client.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Override
    Client client() {
        return client;
    }

    /** How many mirror pairs {@code (i, j), (j, i)} of a persisted square array live on different workers. */
    private int splitMirrors(DArray x) {
        String[] keys = x.slots.getFirst().keys;
        int n = x.chunks().blockRows();
        int split = 0;
        for (int i = 0; i < n; i++) {
            for (int j = i + 1; j < n; j++) {
                String a = keys[i * n + j];
                String b = keys[j * n + i];
                boolean together = cluster.workers().stream().anyMatch(w -> w.holds(a) && w.holds(b));
                split += together ? 0 : 1;
            }
        }
        return split;
    }

    @Test
    void persistKeepsMirrorBlocksOnOneWorkerUnlessAskedForRowMajorBands() throws Exception {
        DArray x = DArrays.random(60, 60, ChunkSpec.of(10), 5).persist(client).await(Duration.ofSeconds(30));
        DArray y = DArrays.random(60, 60, ChunkSpec.of(10), 5).persist(client, BlockLayout.ROW_MAJOR).await(Duration.ofSeconds(30));
        try {
            // 15 pairs over 3 workers: at most one pair straddles each of the 2 boundaries between workers' runs
            assertThat(splitMirrors(x)).isLessThanOrEqualTo(2);
            assertThat(splitMirrors(y)).isGreaterThan(5);
            for (String key : x.slots.getFirst().keys) {
                assertThat(cluster.workers().stream().filter(w -> w.holds(key))).hasSize(1);
            }
            assertThat(cluster.workers()).allMatch(w -> !w.keys().isEmpty());
            assertThat(x.computeVector(client)).isEqualTo(y.computeVector(client));
        } finally {
            x.release();
            y.release();
        }
    }

    @Test
    void theContractRunsOnThreeInprocWorkersInThisJvm() {
        assertThat(cluster.schedulerAddress().scheme()).isEqualTo("inproc");
        assertThat(cluster.workers()).hasSize(3);
        assertThat(cluster.workerProcesses()).isEmpty();
    }
}
