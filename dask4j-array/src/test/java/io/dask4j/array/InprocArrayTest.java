package io.dask4j.array;

import static org.assertj.core.api.Assertions.assertThat;

import io.dask4j.runtime.client.Client;
import io.dask4j.runtime.cluster.LocalCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

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

    @Test
    void theContractRunsOnThreeInprocWorkersInThisJvm() {
        assertThat(cluster.schedulerAddress().scheme()).isEqualTo("inproc");
        assertThat(cluster.workers()).hasSize(3);
        assertThat(cluster.workerProcesses()).isEmpty();
    }
}
