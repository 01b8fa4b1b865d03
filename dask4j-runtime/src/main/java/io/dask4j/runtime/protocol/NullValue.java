package io.dask4j.runtime.protocol;

/**
 * Stands for a {@code null} task result in data stores and data messages, which hold no nulls.
 * Clients turn it back into {@code null}.
 */
public enum NullValue {
    INSTANCE;

    public static Object wrap(Object value) {
        return value == null ? INSTANCE : value;
    }

    public static Object unwrap(Object value) {
        return value == INSTANCE ? null : value;
    }
}
