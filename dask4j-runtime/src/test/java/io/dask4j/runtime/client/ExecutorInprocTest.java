package io.dask4j.runtime.client;

import io.dask4j.runtime.cluster.LocalCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/** {@link ExecutorContract} on an in-process cluster (inproc comms, 2 workers x 2 threads). */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(90)
class ExecutorInprocTest extends ExecutorContract {
    private LocalCluster cluster;
    private Client client;

    /** The cluster the tests run on; a subclass changes the transport. */
    LocalCluster startCluster() {
        return LocalCluster.builder().workers(2).threadsPerWorker(2).start();
    }

    @BeforeAll
    void start() {
        cluster = startCluster();
        client = cluster.client();
    }

    @AfterAll
    void stop() {
        client.close();
        cluster.close();
    }

    @Override
    protected Client client() {
        return client;
    }
}
