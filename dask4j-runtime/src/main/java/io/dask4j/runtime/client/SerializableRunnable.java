package io.dask4j.runtime.client;

import java.io.Serializable;

/**
 * A {@link Runnable} that can travel to workers: the form {@link ClusterExecutor#submit(Runnable)} and {@link
 * ClusterExecutor#execute} need ({@code executor.execute((SerializableRunnable) () -> work())}).
 */
@FunctionalInterface
public interface SerializableRunnable extends Runnable, Serializable {
}
