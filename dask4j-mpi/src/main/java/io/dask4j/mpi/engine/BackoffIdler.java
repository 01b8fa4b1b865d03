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

    /** How the engine thread parks: returns true if it found work instead of parking. */
    interface Sleeper {
        boolean sleep(Object blocker, long nanos);
    }

    private final EngineOptions options;
    private final Sleeper sleeper;
    private long idlePasses;
    private long parkNanos;
    /** Start of the current backoff (spin, then yield until the window closes, then park). */
    private long idleSinceNanos;
    /** Last real work: after {@code deepIdleNanos} of quiet the park cap rises. */
    private long quietSinceNanos;
    /**
     * Smoothed length of the idle spells that ended in work (a running average over about eight spells).
     * Starts long, so that an engine yields only once it has seen messages come in quick succession.
     */
    private long typicalSpellNanos = INITIAL_SPELL_NANOS;
    private static final long INITIAL_SPELL_NANOS = 1_000_000_000L;

    BackoffIdler(EngineOptions options, Sleeper sleeper) {
        this.options = options;
        this.sleeper = sleeper;
        reset();
    }

    void reset() {
        long now = System.nanoTime();
        if (idlePasses > 0) {
            long spell = Math.min(now - idleSinceNanos, INITIAL_SPELL_NANOS);
            typicalSpellNanos += (spell - typicalSpellNanos) / 8;
        }
        rearm(now);
        quietSinceNanos = now;
    }

    /**
     * Starts the backoff again (spin, yield, short parks) without restarting the quiet clock: another thread drove progress meanwhile, but
     * that is not work. (A platform reader waiting on a quiet comm re-drives for a moment every second;
     * restarting the clock each time kept the rank out of its deep idle: ~1,000 wake-ups a second.)
     */
    void rearm() {
        rearm(System.nanoTime());
    }

    private void rearm(long now) {
        idlePasses = 0;
        parkNanos = options.minParkNanos();
        idleSinceNanos = now;
    }

    /** Whether the first idle pass after work already parks (no spinning or yielding: an oversubscribed node). */
    boolean parksAtOnce() {
        return !options.pureSpin() && options.spins() == 0 && options.yieldNanos() == 0;
    }

    /** Whether the next {@link #idle} parks; {@code waiters}: threads are parked waiting for messages. */
    boolean willPark(boolean waiters) {
        return !options.pureSpin() && idlePasses >= options.spins()
                && System.nanoTime() - idleSinceNanos >= yieldWindow(waiters);
    }

    /** A reply to a parked waiter is likely soon: yield 20x longer before parking (bounded, so idle stays idle). */
    private long yieldWindow(boolean waiters) {
        return waiters ? options.yieldNanos() * 20 : options.yieldNanos();
    }

    /**
     * Whether messages have lately come in quick succession: the typical idle spell that ended in work is
     * shorter than {@code adaptiveYieldNanos}.
     */
    boolean messagesFrequent() {
        return typicalSpellNanos < options.adaptiveYieldNanos();
    }

    /** Idles once: spins, yields or parks, depending on how long the engine has found no work. */
    void idle(Object blocker, boolean waiters) {
        long n = idlePasses++;
        if (options.pureSpin() || n < options.spins()) {
            Thread.onSpinWait();
        } else if (System.nanoTime() - idleSinceNanos < yieldWindow(waiters)) {
            Thread.yield();
        } else {
            if (EngineIdleEvent.sleep(sleeper, blocker, parkNanos)) {
                reset();
                return;
            }
            long cap = System.nanoTime() - quietSinceNanos > options.deepIdleNanos() ? options.deepParkNanos()
                    : options.maxParkNanos();
            parkNanos = Math.min(parkNanos << 1, cap);
        }
    }

    /** Parks at the cap at once (someone else is driving progress). */
    void parkAtCap(Object blocker) {
        LockSupport.parkNanos(blocker, options.maxParkNanos());
    }
}
