package io.dask4j.mpi.comm;

import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/** A task on a platform thread of its own, whose state a test can look at (is it parked, waiting to write?). */
final class Background {

    final Thread thread;
    final CompletableFuture<Void> done = new CompletableFuture<>();

    private Background(Runnable task) {
        thread = Thread.ofPlatform().daemon(true).name("test-background").unstarted(() -> {
            try {
                task.run();
                done.complete(null);
            } catch (Throwable t) {
                done.completeExceptionally(t);
            }
        });
        thread.start();
    }

    static Background run(Runnable task) {
        return new Background(task);
    }

    /** Whether the thread is parked (e.g. a writer waiting for credit), not running or finished. */
    boolean parked() {
        Thread.State s = thread.getState();
        return s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING;
    }

    /** Spins (yielding) until {@code condition} holds; fails after 10 s. No fixed sleep. */
    static void awaitTrue(BooleanSupplier condition) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not reached within 10 s");
            }
            Thread.yield();
        }
    }
}
