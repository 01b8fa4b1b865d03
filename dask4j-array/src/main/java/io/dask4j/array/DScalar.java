package io.dask4j.array;

import io.dask4j.runtime.client.Client;

import java.util.Map;

/**
 * A lazy scalar: the result of a whole-array reduction ({@link DArray#sum()} and friends). Nothing runs
 * until {@link #compute}; each compute submits the graph with its keys and releases them afterwards,
 * so the cluster keeps nothing. Immutable and thread-safe; {@code compute} blocks the calling thread.
 */
public final class DScalar {
    private final Source source;
    private final double divisor;
    private final String of;

    DScalar(Source source, double divisor, String of) {
        this.source = source;
        this.divisor = divisor;
        this.of = of;
    }

    /** Runs the graph on {@code client}'s cluster and returns the value. */
    public double compute(Client client) {
        String key = source.keys[0];
        Map<String, Object> values = client.compute(source.graph(), key);
        return ((double[]) values.get(key))[0] / divisor;
    }

    /** Tasks one compute runs (persisted inputs count none). */
    public int taskCount() {
        return source.graph().sizeFor(java.util.Arrays.asList(source.keys));
    }

    @Override
    public String toString() {
        return "DScalar[" + source.name + " of an array of shape " + of + ", tasks=" + taskCount() + "]";
    }
}
