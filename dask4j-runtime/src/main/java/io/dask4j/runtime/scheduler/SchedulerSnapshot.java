package io.dask4j.runtime.scheduler;

import java.util.List;
import java.util.Map;

/**
 * A consistent picture of the scheduler taken on its event loop: task counts per state, workers,
 * clients and traffic. Immutable; {@link Scheduler#snapshot()} may be called from any thread.
 *
 * @param frameBytesReceived bytes of binary frames the scheduler received (task data never passes
 *     through the scheduler, so this stays near zero: only task arguments travel here)
 * @param functionsHeld serialized task functions the scheduler keeps: those of live tasks, recently unused
 *     ones within {@link SchedulerConfig#unusedFunctionBytes()}, and those whose clients have not yet answered
 *     a request to forget them
 */
public record SchedulerSnapshot(Map<TaskStatus, Integer> taskCounts, List<WorkerSnapshot> workers, int clients,
                                long tasksCompleted, long tasksErred, long workersLost,
                                long messagesReceived, long frameBytesReceived, int functionsHeld) {
    public SchedulerSnapshot {
        taskCounts = Map.copyOf(taskCounts);
        workers = List.copyOf(workers);
    }

    public int count(TaskStatus status) {
        return taskCounts.getOrDefault(status, 0);
    }
}
