package io.dask4j.runtime.client;

import java.io.Serializable;
import java.util.function.Supplier;

/** A task without arguments that can travel to workers ({@code client.submit(() -> load())}). */
@FunctionalInterface
public interface SerializableSupplier<R> extends Supplier<R>, Serializable {
}
