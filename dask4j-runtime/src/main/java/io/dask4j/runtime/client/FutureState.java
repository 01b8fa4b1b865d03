package io.dask4j.runtime.client;

import io.dask4j.runtime.protocol.ErrorInfo;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the client knows about one key, shared by every {@link DaskFuture} of that key: status, where
 * the result lives, the error, and the fetched value once gathered. Updated by the client's stream
 * thread, read by user threads; all access synchronizes on this object.
 */
final class FutureState {
    final String key;
    final AtomicInteger refs = new AtomicInteger();
    private FutureStatus status = FutureStatus.PENDING;
    private String worker;
    private ErrorInfo error;
    private CompletableFuture<Void> done = new CompletableFuture<>();
    private int version;
    private Object value;
    private boolean hasValue;

    FutureState(String key) {
        this.key = key;
    }

    synchronized FutureStatus status() {
        return status;
    }

    synchronized String worker() {
        return worker;
    }

    synchronized ErrorInfo error() {
        return error;
    }

    synchronized int version() {
        return version;
    }

    synchronized CompletableFuture<Void> done() {
        return done;
    }

    synchronized boolean hasValue() {
        return hasValue;
    }

    synchronized Object value() {
        return value;
    }

    synchronized void setValue(Object v) {
        value = v;
        hasValue = true;
    }

    void finished(String where) {
        CompletableFuture<Void> d;
        synchronized (this) {
            if (status == FutureStatus.CANCELLED) {
                return;
            }
            status = FutureStatus.FINISHED;
            worker = where;
            version++;
            d = done;
            notifyAll();
        }
        io.dask4j.comm.stats.LatencyTrace.mark("future finished");
        d.complete(null);
    }

    void erred(ErrorInfo info) {
        CompletableFuture<Void> d;
        synchronized (this) {
            if (status == FutureStatus.CANCELLED) {
                return;
            }
            status = FutureStatus.ERROR;
            error = info;
            version++;
            d = done;
            notifyAll();
        }
        d.complete(null);
    }

    /** The result's only copy died with its worker; the scheduler recomputes it. */
    synchronized void lost() {
        if (status == FutureStatus.FINISHED) {
            status = FutureStatus.LOST;
            version++;
            if (!hasValue) {
                done = new CompletableFuture<>();
            }
            notifyAll();
        }
    }

    void cancelled() {
        CompletableFuture<Void> d;
        synchronized (this) {
            if (status.isDone() && status != FutureStatus.FINISHED) {
                return;
            }
            status = FutureStatus.CANCELLED;
            version++;
            d = done;
            notifyAll();
        }
        d.complete(null);
    }

    /** Waits until the version moves past {@code seen} or the deadline passes; true if it moved. */
    synchronized boolean awaitChange(int seen, long deadlineNs) throws InterruptedException {
        while (version == seen) {
            long left = deadlineNs - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            long ms = Math.max(1, Math.min(left / 1_000_000, 50));
            wait(ms);
            if (version == seen) {
                return false;
            }
        }
        return true;
    }
}
