package io.dask4j.runtime.client;

/** The status of a {@link DaskFuture}, as in Dask: pending, finished, error, cancelled, lost. */
public enum FutureStatus {
    PENDING, FINISHED, ERROR, CANCELLED, LOST;

    public boolean isDone() {
        return this == FINISHED || this == ERROR || this == CANCELLED;
    }
}
