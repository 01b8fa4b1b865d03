package io.dask4j.runtime.scheduler;

import io.dask4j.runtime.protocol.WorkerMetrics;

import java.util.List;

/**
 * One worker at a {@link ClusterView}: the scheduler's own figures (tasks processing, results held)
 * and the worker's last heartbeat ({@link WorkerMetrics}: memory, spill, CPU, traffic). Immutable.
 *
 * @param pid the worker's process id (workers in one JVM share it)
 * @param lastSeenSecondsAgo how long ago the scheduler last heard from the worker
 */
public record WorkerView(String id, String name, List<String> addresses, long pid, int nthreads, long memoryLimit,
                         int processing, int keysInMemory, long bytesInMemory, long tasksCompleted,
                         double lastSeenSecondsAgo, WorkerMetrics metrics) {
    public WorkerView {
        addresses = List.copyOf(addresses);
    }
}
