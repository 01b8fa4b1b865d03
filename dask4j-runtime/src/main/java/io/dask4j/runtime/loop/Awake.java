package io.dask4j.runtime.loop;

import io.dask4j.comm.CallerProgress;

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
        return poll(idle, ready, CallerProgress.NONE);
    }

    /**
     * As {@link #poll(IdleOptions, BooleanSupplier)}, but where {@code progress} needs callers the wait drives it
     * for {@link IdleOptions#drive()} instead (yielding after each pass that found nothing), so that what {@code
     * ready} waits for is received and handled on this thread.
     */
    public static boolean poll(IdleOptions idle, BooleanSupplier ready, CallerProgress progress) {
        if (ready.getAsBoolean()) {
            return true;
        }
        long drive = idle.driveNanos();
        if (progress != CallerProgress.NONE && drive > 0) {
            try (CallerProgress.Driving driving = progress.begin()) {
                if (driving != CallerProgress.Driving.IDLE) {
                    long start = System.nanoTime();
                    do {
                        boolean worked = driving.drive();
                        if (ready.getAsBoolean()) {
                            return true;
                        }
                        if (!worked) {
                            Thread.yield();
                        }
                    } while (System.nanoTime() - start < drive);
                    return ready.getAsBoolean();
                }
            }
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
