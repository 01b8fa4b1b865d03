package io.dask4j.runtime.task;

import java.io.Serializable;
import java.util.Objects;

/**
 * A reference to another task's result inside a task's arguments. The client puts one where the user
 * passed a {@link DaskFuture}; a {@link TaskGraph} uses them to wire tasks together; the worker replaces
 * each with the value it holds or fetched from a peer.
 */
public record KeyRef(String key) implements Serializable {
    public KeyRef {
        Objects.requireNonNull(key, "key");
    }
}
