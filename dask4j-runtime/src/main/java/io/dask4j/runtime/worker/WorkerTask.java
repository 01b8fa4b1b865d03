package io.dask4j.runtime.worker;

import java.util.ArrayList;
import java.util.List;

/** One task assignment on a worker (one run of a key). Guarded by the owning {@link TaskManager}'s lock. */
final class WorkerTask implements Comparable<WorkerTask> {
    final String key;
    final int run;
    final String fnId;
    final byte[] args;
    final long priority;
    final List<String> fetchedDeps = new ArrayList<>(2);
    int missing;
    volatile boolean cancelled;

    WorkerTask(String key, int run, String fnId, byte[] args, long priority) {
        this.key = key;
        this.run = run;
        this.fnId = fnId;
        this.args = args;
        this.priority = priority;
    }

    @Override
    public int compareTo(WorkerTask o) {
        return Long.compare(priority, o.priority);
    }
}
