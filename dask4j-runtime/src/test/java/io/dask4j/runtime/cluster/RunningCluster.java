package io.dask4j.runtime.cluster;

import io.dask4j.runtime.client.Client;

/** An in-process cluster and its client, for a test class to start once and close after its tests. */
public record RunningCluster(LocalCluster cluster, Client client) implements AutoCloseable {
    /** {@code workers} x {@code threads} over inproc comms. */
    public static RunningCluster inproc(int workers, int threads) {
        LocalCluster c = LocalCluster.builder().workers(workers).threadsPerWorker(threads).start();
        return new RunningCluster(c, c.client());
    }

    @Override
    public void close() {
        client.close();
        cluster.close();
    }
}
