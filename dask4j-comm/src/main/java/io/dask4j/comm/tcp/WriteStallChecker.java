package io.dask4j.comm.tcp;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Aborts tcp comms whose write has gone without progress for their timeout. Without it a write to a host that
 * froze (no FIN, no reset) blocks until the kernel gives up retransmitting, about 15 minutes on Linux, since
 * keepalive is suspended while sent data is unacknowledged, wherever {@link TcpUserTimeout} could not set
 * {@code TCP_USER_TIMEOUT} (not Linux, no native access); and a live peer that stops reading, whose kernel keeps
 * acknowledging window probes, would block it for ever.
 *
 * <p>{@link #SHARED} serves every comm of the process: it checks all its comms once every {@link #CHECK_PERIOD_MS}
 * on the {@link TcpTimer}'s daemon thread, and schedules nothing while it watches none. A stalled comm is aborted
 * once its writer has made no progress for at least its timeout and at most one period more. The checker holds its
 * comms weakly, so a comm dropped without being closed is not kept alive; closed comms leave at once ({@link
 * #unwatch}). Other instances are not scheduled: tests drive them with {@link #check(long)}.
 *
 * <p>Being in userland, unlike {@code TCP_USER_TIMEOUT}, it cannot tell a stalled peer from a paused JVM, whose
 * writers cannot report progress either; so a check that comes much later than due starts every clock afresh
 * instead of aborting (see {@link #MAX_CHECK_GAP_NS}).
 *
 * <p><b>Threads.</b> {@link #watch} and {@link #unwatch}: any thread. {@link #check(long)}: one thread at a time
 * (the timer's, for {@link #SHARED}), since it keeps its own and each comm's {@link WriteProgress} notes.
 */
final class WriteStallChecker {

    /** A comm as the checker sees it. */
    interface Watched {
        /** The progress its writer reports. */
        WriteProgress writeProgress();

        /** Called on the checking thread once its write has gone {@code timeout} without progress; must not block. */
        void onWriteStalled(Duration timeout);
    }

    /** One comm under watch, held weakly; the comm keeps it to {@link #unwatch} itself when it closes. */
    static final class Watch extends WeakReference<Watched> {
        private final Duration timeout;
        private final long timeoutNs;

        private Watch(Watched comm, Duration timeout) {
            super(comm);
            this.timeout = timeout;
            this.timeoutNs = timeout.toNanos();
        }
    }

    /** Short against the shortest timeout the options allow (11 s), cheap for an idle process (one wake-up a second). */
    static final long CHECK_PERIOD_MS = 1000;
    /**
     * A longer gap between checks means this process was paused (a long GC, a stopped JVM, a starved timer): its
     * writers could not report progress meanwhile, so the gap is not held against them.
     */
    static final long MAX_CHECK_GAP_NS = TimeUnit.MILLISECONDS.toNanos(3 * CHECK_PERIOD_MS);
    static final WriteStallChecker SHARED = new WriteStallChecker(true);
    private static final Logger LOG = LoggerFactory.getLogger(WriteStallChecker.class);

    private final boolean onTimer;
    private final Set<Watch> watches = ConcurrentHashMap.newKeySet();
    /** The periodic check while there are watches; guarded by {@code this}, as are the set's empty/non-empty changes. */
    private ScheduledFuture<?> checks;
    /** When {@link #check} last ran, if it has; the checking thread's. */
    private boolean checkedBefore;
    private long lastCheckNs;

    WriteStallChecker(boolean onTimer) {
        this.onTimer = onTimer;
    }

    /** Starts watching {@code comm}, whose writes may go {@code timeout} (positive) without progress. */
    Watch watch(Watched comm, Duration timeout) {
        if (timeout.isZero() || timeout.isNegative()) {
            throw new IllegalArgumentException("a write-stall timeout must be positive: " + timeout);
        }
        Watch w = new Watch(comm, timeout);
        synchronized (this) {
            watches.add(w);
            if (onTimer && checks == null) {
                checks = TcpTimer.every(CHECK_PERIOD_MS, TimeUnit.MILLISECONDS, this::checkNow);
            }
        }
        return w;
    }

    /** Stops watching; idempotent. */
    void unwatch(Watch w) {
        synchronized (this) {
            if (watches.remove(w) && watches.isEmpty() && checks != null) {
                checks.cancel(false);
                checks = null;
            }
        }
    }

    int watchedCount() {
        return watches.size();
    }

    boolean isWatching(Watched comm) {
        return watches.stream().anyMatch(w -> w.refersTo(comm));
    }

    private void checkNow() {
        check(System.nanoTime());
    }

    /**
     * Aborts the comms stalled as of {@code nowNs} and forgets those the GC has taken; returns how many it aborted.
     * After a gap longer than {@link #MAX_CHECK_GAP_NS} it aborts none and times every stall afresh.
     */
    int check(long nowNs) {
        boolean paused = checkedBefore && nowNs - lastCheckNs > MAX_CHECK_GAP_NS;
        checkedBefore = true;
        lastCheckNs = nowNs;
        int aborted = 0;
        for (Watch w : watches) {
            Watched comm = w.get();
            if (comm == null) {
                unwatch(w);   // dropped without close(): it cannot be writing, and nothing else will unwatch it
            } else if (paused) {
                comm.writeProgress().restartClock(nowNs);
            } else if (comm.writeProgress().stalledNanos(nowNs) >= w.timeoutNs) {
                aborted++;
                abort(comm, w.timeout);
            }
        }
        return aborted;
    }

    private static void abort(Watched comm, Duration timeout) {
        LOG.warn("{}: no write progress for {}, aborting", comm, describe(timeout));
        try {
            comm.onWriteStalled(timeout);
        } catch (RuntimeException e) {
            // Thrown out of the periodic check it would cancel every later check of every comm.
            LOG.error("{}: aborting a stalled comm failed", comm, e);
        }
    }

    /** {@code timeout} for people: "30 s", or "1500 ms" when not whole seconds. */
    static String describe(Duration timeout) {
        long ms = timeout.toMillis();
        return ms % 1000 == 0 ? ms / 1000 + " s" : ms + " ms";
    }
}
