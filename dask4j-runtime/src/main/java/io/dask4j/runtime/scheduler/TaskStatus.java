package io.dask4j.runtime.scheduler;

/**
 * Where a task is in its life on the scheduler: {@code released ->
 * waiting -> processing -> memory | erred}, and {@code forgotten} once no client and no dependent needs it. A
 * waiting task with all its inputs in memory is "ready" and is placed on a worker as soon as one has room.
 */
public enum TaskStatus {
    RELEASED, WAITING, PROCESSING, MEMORY, ERRED, FORGOTTEN;

    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
