package io.dask4j.runtime.client;

import io.dask4j.runtime.cluster.LocalCluster;

/** {@link ExecutorContract} over tcp, with the 2 workers (2 threads each) in their own JVMs. */
class ExecutorTcpProcessesTest extends ExecutorInprocTest {
    @Override
    LocalCluster startCluster() {
        return LocalCluster.builder().workers(2).threadsPerWorker(2).processes(true).start();
    }
}
