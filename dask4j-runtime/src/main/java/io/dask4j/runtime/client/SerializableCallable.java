package io.dask4j.runtime.client;

import java.io.Serializable;
import java.util.concurrent.Callable;

/**
 * A {@link Callable} that can travel to workers. {@link ClusterExecutor#submit(SerializableCallable)} takes it, so
 * that a lambda passed there compiles to a serializable one; through a plain {@code ExecutorService} reference,
 * cast it: {@code executor.submit((SerializableCallable<Integer>) () -> 42)}.
 */
@FunctionalInterface
public interface SerializableCallable<V> extends Callable<V>, Serializable {
}
