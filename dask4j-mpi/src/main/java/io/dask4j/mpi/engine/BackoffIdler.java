package io.dask4j.mpi.engine;

import java.util.concurrent.locks.LockSupport;

/**
 * Agrona's BackoffIdleStrategy in miniature: after a pass with no work, spin, then yield, then park from
 * {@code minParkNanos} doubling to {@code maxParkNanos}; any work resets it. Used by one thread only.
 */
final class BackoffIdler {

    private final EngineOptions options;
    private long idlePasses;
    private long parkNanos;

    BackoffIdler(EngineOptions options) {
        this.options = options;
        reset();
    }

    void reset() {
        idlePasses = 0;
        parkNanos = options.minParkNanos();
    }

    /** Idles once; returns true if it parked (so the caller can announce it is asleep beforehand). */
    boolean willPark() {
        return !options.pureSpin() && idlePasses >= options.spins() + options.yields();
    }

    void idle(Object blocker) {
        long n = idlePasses++;
        if (options.pureSpin() || n < options.spins()) {
            Thread.onSpinWait();
        } else if (n < options.spins() + options.yields()) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(blocker, parkNanos);
            parkNanos = Math.min(parkNanos << 1, options.maxParkNanos());
        }
    }

    /** Parks at the cap at once (someone else is driving progress). */
    void parkAtCap(Object blocker) {
        LockSupport.parkNanos(blocker, options.maxParkNanos());
    }
}
