package io.dask4j.runtime.client;

import java.io.Serializable;
import java.util.function.Function;

/** A one-argument task that can travel to workers ({@code client.submit(x -> x + 1, 41)}). */
@FunctionalInterface
public interface SerializableFunction<T, R> extends Function<T, R>, Serializable {
}
