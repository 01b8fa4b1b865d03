package io.dask4j.comm;

import java.time.Duration;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * Warnings about what peers do (rejected handshakes, refused frames), at most {@code burst} per window, so that a
 * peer that probes thousands of times can neither flood the log nor hide in silence: the first warning after a quiet
 * spell says how many were left out since the last one. Thread-safe; any thread; one instance per kind of event.
 */
public final class RateLimitedLog {

    private final Logger log;
    private final int burst;
    private final long windowNs;
    private final LongSupplier clock;
    private long windowStartNs;
    private int inWindow;
    private long suppressed;

    /** At most {@code burst} warnings per {@code window} to {@code log}. */
    public RateLimitedLog(Logger log, int burst, Duration window) {
        this(log, burst, window, System::nanoTime);
    }

    RateLimitedLog(Logger log, int burst, Duration window, LongSupplier clock) {
        if (burst < 1) {
            throw new IllegalArgumentException("burst must be at least 1: " + burst);
        }
        this.log = log;
        this.burst = burst;
        this.windowNs = window.toNanos();
        this.clock = clock;
        this.windowStartNs = clock.getAsLong() - windowNs;
    }

    /**
     * Logs {@code message} at WARN (an SLF4J pattern with {@code args}) unless this window's burst is spent.
     *
     * @return whether it was logged
     */
    public boolean warn(String message, Object... args) {
        long left;
        synchronized (this) {
            long now = clock.getAsLong();
            if (now - windowStartNs >= windowNs) {
                windowStartNs = now;
                inWindow = 0;
            }
            if (inWindow >= burst) {
                suppressed++;
                return false;
            }
            inWindow++;
            left = suppressed;
            suppressed = 0;
        }
        if (left > 0) {
            log.warn(message + " ({} similar warnings left out before this one)", append(args, left));
        } else {
            log.warn(message, args);
        }
        return true;
    }

    /** How many warnings were left out since the last one logged. */
    public synchronized long suppressed() {
        return suppressed;
    }

    private static Object[] append(Object[] args, Object last) {
        Object[] out = java.util.Arrays.copyOf(args, args.length + 1);
        out[args.length] = last;
        return out;
    }
}
