package io.dask4j.runtime.scheduler;

import io.dask4j.runtime.protocol.MessageSink;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The scheduler's view of one worker. Owned by the scheduler's event-loop thread. */
final class WorkerState {
    final String id;
    final String name;
    /** Contact address per scheme; peers and clients use the one matching their own scheme. */
    final Map<String, String> addressesByScheme;
    final List<String> addresses;
    final int nthreads;
    final long memoryLimit;
    final Outbox sink;
    final ProcessingTasks processing = new ProcessingTasks();
    final Set<TaskState> has = new HashSet<>();
    /**
     * Copies this worker keeps that the scheduler stopped counting (a peer could not fetch them from here)
     * but that a task running here still reads: freed once no such task runs, unless counted again first.
     */
    final Set<TaskState> uncountedCopies = new HashSet<>();
    long nbytes;
    long lastSeenNs;
    long tasksCompleted;
    boolean alive = true;
    /** The worker's process id (from its registration) and its latest heartbeat figures. */
    long pid;
    io.dask4j.runtime.protocol.WorkerMetrics metrics = io.dask4j.runtime.protocol.WorkerMetrics.EMPTY;

    WorkerState(String id, String name, List<String> addresses, Map<String, String> addressesByScheme,
                int nthreads, long memoryLimit, MessageSink sink, long nowNs) {
        this.id = id;
        this.name = name;
        this.addresses = addresses;
        this.addressesByScheme = addressesByScheme;
        this.nthreads = Math.max(1, nthreads);
        this.memoryLimit = memoryLimit;
        this.sink = Outbox.forWorker(sink);
        this.lastSeenNs = nowNs;
    }

    String addressFor(String scheme) {
        return addressesByScheme.getOrDefault(scheme, id);
    }

    /** Processing tasks per thread: the placement's measure of how busy this worker is. */
    double occupancy() {
        return (double) processing.size() / nthreads;
    }

    @Override
    public String toString() {
        return "Worker[" + id + "]";
    }
}
