package io.dask4j.array;

import static org.assertj.core.api.Assertions.assertThat;

import io.dask4j.runtime.client.Client;
import io.dask4j.runtime.cluster.LocalCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The array contract ({@link ArrayContract}) with 2 worker processes over tcp (blocks cross JVMs as raw frames). */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TcpArrayTest extends ArrayContract {
    private LocalCluster cluster;
    private Client client;

    @BeforeAll
    void startCluster() {
        cluster = LocalCluster.builder().workers(2).threadsPerWorker(1).processes(true).start();
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
    void theContractRunsOnTwoLiveWorkerProcessesOverTcp() {
        assertThat(cluster.schedulerAddress().scheme()).isEqualTo("tcp");
        assertThat(cluster.workerProcesses()).hasSize(2).allMatch(Process::isAlive);
    }
}
