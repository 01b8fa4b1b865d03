package io.dask4j.runtime.loop;

import io.dask4j.comm.config.ConfigSource;
import io.dask4j.comm.config.Settings;

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
 * <p>Where the answer comes from another process over a transport that moves messages only while a thread calls
 * into it (MPI, {@link io.dask4j.comm.CallerProgress}), a waiting thread instead drives that transport for {@code
 * drive}, yielding between its passes: the answer is then received on the waiting thread itself, with neither the
 * transport thread's wake-up nor this thread's. Such answers take longer than an in-process one (a task on
 * another rank, a reply through the scheduler), hence the longer budget.
 *
 * @param spin how long to poll with {@code onSpinWait} (zero for none)
 * @param yield how long to poll with {@code Thread.yield} after the spin (zero for none)
 * @param drive how long to drive a transport that needs callers, in place of spin and yield (zero for never)
 */
public record IdleOptions(Duration spin, Duration yield, Duration drive) {

    public IdleOptions {
        if (spin.isNegative() || yield.isNegative() || drive.isNegative()) {
            throw new IllegalArgumentException("idle spin, yield and drive must be >= 0: " + spin + ", " + yield + ", " + drive);
        }
    }

    /** Spin and yield, never driving a transport. */
    public IdleOptions(Duration spin, Duration yield) {
        this(spin, yield, Duration.ZERO);
    }

    /**
     * A few microseconds of spinning and a short yield phase; {@link #DEFAULT_DRIVE} of driving a transport that needs
     * callers (system property {@code dask4j.idle.driveMicros}, 0 never drives). Where the cores are few (this process may
     * share them with the other ranks of a job) spinning only takes the core from whoever would answer, so
     * there the budget is yields, which give the core away.
     */
    public static IdleOptions defaults() {
        boolean fewCores = Runtime.getRuntime().availableProcessors() <= 2;
        Duration drive = Duration.ofNanos(Settings.IDLE_DRIVE_MICROS.longValue(ConfigSource.system(),
                DEFAULT_DRIVE.toNanos() / 1_000) * 1_000);
        return new IdleOptions(Duration.ofNanos(fewCores ? 2_000 : 20_000), Duration.ofNanos(50_000), drive);
    }

    /**
     * How long a waiting thread drives a transport that needs callers: about one round trip through another rank
     * and back on a small machine (a message each way, a task, the scheduler's turn), so that a sequence of small
     * tasks keeps the waiting side awake and a longer wait costs at most this much CPU before parking.
     */
    static final Duration DEFAULT_DRIVE = Duration.ofNanos(300_000);

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

    long driveNanos() {
        return drive.toNanos();
    }
}
