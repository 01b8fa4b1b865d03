package io.dask4j.runtime.loop;

import java.util.function.BooleanSupplier;

/**
 * Staying awake briefly before blocking: polls {@code ready} for {@link IdleOptions#spin()} with {@link
 * Thread#onSpinWait} and then for {@link IdleOptions#yield()} with {@link Thread#yield}. Stateless; any thread.
 */
public final class Awake {
    private Awake() {
    }

    /** True as soon as {@code ready} is; false once the budget of {@code idle} is spent without it. */
    public static boolean poll(IdleOptions idle, BooleanSupplier ready) {
        if (ready.getAsBoolean()) {
            return true;
        }
        long spin = idle.spinNanos();
        long yield = idle.yieldNanos();
        if (spin == 0 && yield == 0) {
            return false;
        }
        long start = System.nanoTime();
        while (System.nanoTime() - start < spin) {
            Thread.onSpinWait();
            if (ready.getAsBoolean()) {
                return true;
            }
        }
        long end = start + spin + yield;
        while (System.nanoTime() - end < 0) {
            Thread.yield();
            if (ready.getAsBoolean()) {
                return true;
            }
        }
        return false;
    }
}
