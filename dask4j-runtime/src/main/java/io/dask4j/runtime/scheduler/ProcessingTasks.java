package io.dask4j.runtime.scheduler;

import java.util.ArrayList;
import java.util.List;

/**
 * The tasks processing on one worker: an array with swap-remove, each task remembering its slot ({@link
 * TaskState#processingSlot}), since a task processes on at most one worker at a time. Adding and removing touch
 * one or two array cells; the hash set this replaces cost a hash lookup and a node allocation per task on the
 * scheduler's event loop, which a no-op map does 100,000s of times a second. Order is not kept.
 *
 * <p>Owned by the scheduler's event-loop thread, like {@link WorkerState}.
 */
final class ProcessingTasks {
    private final ArrayList<TaskState> tasks = new ArrayList<>();

    /** Adds {@code t}, which must not be processing on any worker. */
    void add(TaskState t) {
        t.processingSlot = tasks.size();
        tasks.add(t);
    }

    /** Removes {@code t} if it processes here; returns whether it did. */
    boolean remove(TaskState t) {
        int slot = t.processingSlot;
        if (slot < 0 || slot >= tasks.size() || tasks.get(slot) != t) {
            return false;
        }
        TaskState last = tasks.removeLast();
        if (last != t) {
            tasks.set(slot, last);
            last.processingSlot = slot;
        }
        t.processingSlot = -1;
        return true;
    }

    int size() {
        return tasks.size();
    }

    /** Removes every task and returns them. */
    List<TaskState> drain() {
        List<TaskState> all = new ArrayList<>(tasks);
        for (TaskState t : all) {
            t.processingSlot = -1;
        }
        tasks.clear();
        return all;
    }
}
