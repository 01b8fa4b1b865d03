package io.dask4j.runtime.worker;

import java.time.Instant;

/**
 * Wall-clock microseconds for task start and stop times, read from the monotonic clock plus an offset
 * taken once (two {@code Instant.now()} calls per task would cost more than the no-op tasks they time).
 * Workers on one host agree to within a millisecond or so, which is what the dashboard's task stream
 * needs. Thread-safe.
 */
final class TaskClock {
    private static final long BASE_NANOS = System.nanoTime();
    private static final long BASE_MICROS;

    static {
        Instant now = Instant.now();
        BASE_MICROS = now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }

    private TaskClock() {
    }

    static long nowMicros() {
        return BASE_MICROS + (System.nanoTime() - BASE_NANOS) / 1_000;
    }
}
