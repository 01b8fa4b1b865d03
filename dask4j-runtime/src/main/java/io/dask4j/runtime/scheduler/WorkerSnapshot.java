package io.dask4j.runtime.scheduler;

import java.util.List;

/**
 * One worker as the scheduler saw it at a {@link SchedulerSnapshot}: immutable, safe to hand to any
 * thread (a dashboard, a test).
 */
public record WorkerSnapshot(String id, String name, List<String> addresses, int nthreads, long memoryLimit,
                             int processing, int keysInMemory, long bytesInMemory, long tasksCompleted) {
    public WorkerSnapshot {
        addresses = List.copyOf(addresses);
    }
}
