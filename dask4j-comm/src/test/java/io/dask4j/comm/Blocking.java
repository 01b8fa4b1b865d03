package io.dask4j.comm;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/** For tests that must meet a call already blocked (a read waiting for data, a connect waiting for a listener). */
public final class Blocking {

    private Blocking() {
    }

    /**
     * Runs {@code call} on a virtual thread of its own and returns once that thread waits inside it (parked:
     * blocked on the comm) or is done; fails if neither happens within 20 s. Any thread.
     */
    public static <T> CompletableFuture<T> blockedIn(Callable<T> call) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread thread = Thread.ofVirtual().start(() -> {
            try {
                result.complete(call.call());
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!result.isDone() && thread.getState() != Thread.State.WAITING && thread.getState() != Thread.State.TIMED_WAITING) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("the call neither blocked nor returned within 20 s: " + thread.getState());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        return result;
    }
}
