package io.dask4j.runtime.client;

import java.util.concurrent.RejectedExecutionException;

/**
 * A task handed to a {@link ClusterExecutor} cannot travel to the workers: it does not implement {@link
 * java.io.Serializable} (a lambda whose target type is a plain {@code Runnable} or {@code Callable}), or
 * serializing it failed (it captures something that cannot be serialized). A {@link RejectedExecutionException},
 * as the {@code ExecutorService} contract names for a task that cannot be scheduled; the executor goes on serving.
 */
public class TaskNotSerializableException extends RejectedExecutionException {
    public TaskNotSerializableException(String message, Throwable cause) {
        super(message, cause);
    }
}
