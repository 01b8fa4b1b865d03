package io.dask4j.runtime.task;

import java.io.Serializable;

/**
 * A task with any number of arguments: the general form every task takes on a worker. Must be
 * serializable (a lambda assigned to this type is) because it travels to the workers.
 *
 * <p>Arguments arrive with futures replaced by their values. Called on a worker's task thread.
 *
 * @param <R> the result type
 */
@FunctionalInterface
public interface TaskFunction<R> extends Serializable {
    R apply(Object... args) throws Exception;
}
