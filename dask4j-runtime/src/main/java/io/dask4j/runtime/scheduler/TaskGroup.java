package io.dask4j.runtime.scheduler;

/**
 * Tasks whose keys share a prefix ({@code map-1a2b3c4d-17} and {@code map-1a2b3c4d-18} are both
 * {@code map}), counted incrementally as their tasks change state, so the dashboard's progress view
 * costs O(groups), never O(tasks). Mutable; scheduler event-loop thread only.
 */
final class TaskGroup {
    final String name;
    final int[] counts = new int[TaskStatus.values().length];
    long total;
    long completed;
    long erred;
    long nbytesInMemory;
    long computeMicros;

    TaskGroup(String name) {
        this.name = name;
    }

    TaskGroupView view() {
        return new TaskGroupView(name, total, completed, erred, counts[TaskStatus.WAITING.ordinal()],
                counts[TaskStatus.PROCESSING.ordinal()], counts[TaskStatus.MEMORY.ordinal()],
                counts[TaskStatus.RELEASED.ordinal()], counts[TaskStatus.ERRED.ordinal()], nbytesInMemory,
                computeMicros / 1e6);
    }
}
