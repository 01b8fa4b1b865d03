package io.dask4j.runtime.scheduler;

import java.util.List;
import java.util.Map;

/**
 * An aggregate picture of the scheduler for the dashboard and {@code /metrics}, published by the
 * scheduler's event loop (see {@link Scheduler#view()}); its size depends on workers and task groups,
 * never on the number of tasks. Immutable, safe to read from any thread.
 *
 * @param version increases with each published view
 * @param takenAtMillis wall-clock time of the view
 * @param tasksPerSecond tasks finished per second over the last few seconds
 * @param streamSeq the sequence number the next task-stream event will get (see {@link Scheduler#taskStream})
 */
public record ClusterView(long version, long takenAtMillis, long startedAtMillis, List<String> addresses,
                          Map<TaskStatus, Integer> taskCounts, long tasksCompleted, long tasksErred, long workersLost,
                          double tasksPerSecond, int clients, List<WorkerView> workers, List<TaskGroupView> groups,
                          long streamSeq) {
    public ClusterView {
        addresses = List.copyOf(addresses);
        taskCounts = Map.copyOf(taskCounts);
        workers = List.copyOf(workers);
        groups = List.copyOf(groups);
    }

    public int count(TaskStatus status) {
        return taskCounts.getOrDefault(status, 0);
    }
}
