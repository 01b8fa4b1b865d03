package io.dask4j.runtime.loop;

import java.time.Duration;

/**
 * How long a thread that waits for work (an {@link EventLoop} with nothing queued, a client waiting for a
 * result) stays awake before it parks: first {@code spin} of busy polling ({@link Thread#onSpinWait}), then
 * {@code yield} of polling with {@link Thread#yield} (which lets any other runnable thread or process have the
 * core), then it parks until woken. Staying awake saves the wake-up of a parked thread (a futex call, and on
 * a machine with more busy processes than cores a trip through the OS scheduler, tens of microseconds) when
 * the next piece of work comes soon, as the answer to a message just sent does; parking afterwards keeps a
 * quiet process at no CPU. Immutable.
 *
 * @param spin how long to poll with {@code onSpinWait} (zero for none)
 * @param yield how long to poll with {@code Thread.yield} after the spin (zero for none)
 */
public record IdleOptions(Duration spin, Duration yield) {

    public IdleOptions {
        if (spin.isNegative() || yield.isNegative()) {
            throw new IllegalArgumentException("idle spin and yield must be >= 0: " + spin + ", " + yield);
        }
    }

    /**
     * A few microseconds of spinning and a short yield phase. Where the cores are few (this process may
     * share them with the other ranks of a job) spinning only takes the core from whoever would answer, so
     * there the budget is yields, which give the core away.
     */
    public static IdleOptions defaults() {
        boolean fewCores = Runtime.getRuntime().availableProcessors() <= 2;
        return new IdleOptions(Duration.ofNanos(fewCores ? 2_000 : 20_000), Duration.ofNanos(fewCores ? 50_000 : 50_000));
    }

    /** Never stays awake: parks at once (the behaviour of a plain blocking queue). */
    public static IdleOptions parkAtOnce() {
        return new IdleOptions(Duration.ZERO, Duration.ZERO);
    }

    long spinNanos() {
        return spin.toNanos();
    }

    long yieldNanos() {
        return yield.toNanos();
    }
}
