package io.dask4j.runtime.scheduler;

import io.dask4j.runtime.protocol.ErrorInfo;

import java.util.ArrayList;
import java.util.List;

/**
 * The scheduler's record of one task. Mutable, owned by the scheduler's event-loop thread only.
 * Plain fields and small lists: the loop touches several of these per task per message, and anything
 * heavier (sets, boxed maps) would dominate the scheduler's per-task cost.
 */
final class TaskState {
    static final TaskState[] NONE = new TaskState[0];

    final String key;
    TaskStatus status = TaskStatus.RELEASED;
    /** Function id and serialized arguments; {@code fnId == null} for scattered data, which cannot be recomputed. */
    String fnId;
    byte[] args;
    long priority;
    TaskState[] deps = NONE;
    /** Dependents, possibly including forgotten ones (pruned lazily); {@link #liveDependents} is exact. */
    List<TaskState> dependents;
    int liveDependents;
    /** Inputs not in memory, while waiting. */
    int waitingOn;
    /** Dependents that are waiting or processing and so still need this task's data. */
    int waiters;
    ClientState wanter;
    List<ClientState> moreWanters;
    WorkerState processingOn;
    /** Where this task sits in {@link #processingOn}'s {@link ProcessingTasks}, or -1. */
    int processingSlot = -1;
    int runId;
    List<WorkerState> holders;
    long nbytes;
    int suspicious;
    /** How often a worker running this task reported an input missing (see SchedulerState#missingData). */
    int missingDataRounds;
    ErrorInfo error;
    boolean queued;
    /** The task's key-prefix group, for the dashboard's progress counts; set when created. */
    TaskGroup group;

    TaskState(String key) {
        this.key = key;
    }

    boolean wanted() {
        return wanter != null;
    }

    boolean needed() {
        return wanter != null || waiters > 0;
    }

    /** True if {@code status} is one where this task still needs its inputs. */
    static boolean needsInputs(TaskStatus status) {
        return status == TaskStatus.WAITING || status == TaskStatus.PROCESSING;
    }

    void addDependent(TaskState d) {
        if (dependents == null) {
            dependents = new ArrayList<>(2);
        } else if (dependents.size() > 16 && dependents.size() > 2 * liveDependents) {
            dependents.removeIf(t -> t.status == TaskStatus.FORGOTTEN);
        }
        dependents.add(d);
        liveDependents++;
    }

    List<TaskState> dependents() {
        return dependents == null ? List.of() : dependents;
    }

    boolean addWanter(ClientState c) {
        if (wantedBy(c)) {
            return false;
        }
        if (wanter == null) {
            wanter = c;
        } else {
            if (moreWanters == null) {
                moreWanters = new ArrayList<>(2);
            }
            moreWanters.add(c);
        }
        return true;
    }

    boolean wantedBy(ClientState c) {
        return wanter == c || (moreWanters != null && moreWanters.contains(c));
    }

    /** Returns whether {@code c} wanted this task. */
    boolean removeWanter(ClientState c) {
        if (wanter == c) {
            wanter = moreWanters == null || moreWanters.isEmpty() ? null : moreWanters.removeFirst();
            return true;
        }
        return moreWanters != null && moreWanters.remove(c);
    }

    void forEachWanter(java.util.function.Consumer<ClientState> action) {
        if (wanter != null) {
            action.accept(wanter);
        }
        if (moreWanters != null) {
            moreWanters.forEach(action);
        }
    }

    @Override
    public String toString() {
        return "Task[" + key + " " + status.label() + "]";
    }
}
