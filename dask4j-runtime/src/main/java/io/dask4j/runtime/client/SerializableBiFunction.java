package io.dask4j.runtime.client;

import java.io.Serializable;
import java.util.function.BiFunction;

/** A two-argument task that can travel to workers ({@code client.submit(Integer::sum, a, b)}). */
@FunctionalInterface
public interface SerializableBiFunction<T, U, R> extends BiFunction<T, U, R>, Serializable {
}
