package io.dask4j.runtime.client;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Polls a condition until it holds or the timeout passes (then fails with {@code what}). */
final class Await {
    private Await() {
    }

    static void until(String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline >= 0) {
                throw new AssertionError("timed out waiting until " + what);
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting until " + what);
            }
        }
    }
}
