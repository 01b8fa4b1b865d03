package io.dask4j.mpi.engine;

import java.util.concurrent.locks.LockSupport;

/**
 * Agrona's BackoffIdleStrategy in miniature: after a pass with no work, spin, then yield (for a time, not
 * a count), then park from
 * {@code minParkNanos} doubling to {@code maxParkNanos}; any work resets it. After {@code deepIdleNanos}
 * without work the cap rises to {@code deepParkNanos}, so that a quiet rank costs almost no CPU (each
 * wake-up costs a few microseconds here, and parks are never shorter than ~100 us on this VM). Used by
 * one thread only.
 */
final class BackoffIdler {

    private final EngineOptions options;
    private long idlePasses;
    private long parkNanos;
    private long idleSinceNanos;

    BackoffIdler(EngineOptions options) {
        this.options = options;
        reset();
    }

    void reset() {
        idlePasses = 0;
        parkNanos = options.minParkNanos();
        idleSinceNanos = System.nanoTime();
    }

    /** Idles once; returns true if it parked (so the caller can announce it is asleep beforehand). */
    /** Whether the next {@link #idle} parks; {@code waiters}: threads are parked waiting for messages. */
    boolean willPark(boolean waiters) {
        return !options.pureSpin() && idlePasses >= options.spins()
                && System.nanoTime() - idleSinceNanos >= yieldWindow(waiters);
    }

    /** A reply to a parked waiter is likely soon: yield 20x longer before parking (bounded, so idle stays idle). */
    private long yieldWindow(boolean waiters) {
        return waiters ? options.yieldNanos() * 20 : options.yieldNanos();
    }

    void idle(Object blocker, boolean waiters) {
        long n = idlePasses++;
        if (options.pureSpin() || n < options.spins()) {
            Thread.onSpinWait();
        } else if (System.nanoTime() - idleSinceNanos < yieldWindow(waiters)) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(blocker, parkNanos);
            long cap = System.nanoTime() - idleSinceNanos > options.deepIdleNanos() ? options.deepParkNanos()
                    : options.maxParkNanos();
            parkNanos = Math.min(parkNanos << 1, cap);
        }
    }

    /** Parks at the cap at once (someone else is driving progress). */
    void parkAtCap(Object blocker) {
        LockSupport.parkNanos(blocker, options.maxParkNanos());
    }
}
