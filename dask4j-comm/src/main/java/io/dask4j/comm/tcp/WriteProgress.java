package io.dask4j.comm.tcp;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * How far one comm's writes have got: the writer reports, the {@link WriteStallChecker} watches. The writer only
 * bumps a counter, so the write path reads no clock; the checker notes on its own clock when it last saw the counter
 * change. A stall is therefore measured from the checker's first sight of it, up to one check late and never early:
 * a write is never reported stalled before it really went that long without progress.
 *
 * <p><b>Threads.</b> {@link #started()}, {@link #advanced()} and {@link #finished()}: the writer, holding the comm's
 * write lock (writes are serialized, so the counter has one writer at a time). {@link #stalledNanos(long)} and
 * {@link #restartClock(long)}: the checker's thread only (they keep the checker's notes, unsynchronized).
 */
final class WriteProgress {
    private static final VarHandle STEP;

    static {
        try {
            STEP = MethodHandles.lookup().findVarHandle(WriteProgress.class, "step", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Odd while a write is under way, even between writes; every change is progress. Written by the writer only. */
    @SuppressWarnings("unused") // through STEP
    private volatile long step;

    /** The checker's notes: the step it saw last, and when it first saw it. */
    private long seenStep;
    private long seenSinceNs;

    /** A write begins (even to odd). */
    void started() {
        bump(1);
    }

    /** The kernel accepted some bytes of the write under way (odd stays odd, but changes). */
    void advanced() {
        bump(2);
    }

    /** The write under way ended, done or failed (odd to even). */
    void finished() {
        bump(1);
    }

    private void bump(long by) {
        // One writer at a time (the write lock orders them), so a plain read and a release store suffice: no
        // atomic read-modify-write, no fence on the write path.
        STEP.setRelease(this, (long) STEP.get(this) + by);
    }

    /**
     * For the checker: how long, as of {@code nowNs}, the write under way has gone without progress since this
     * checker first saw it so; zero when no write is under way or the counter moved since the last call.
     */
    long stalledNanos(long nowNs) {
        long current = (long) STEP.getAcquire(this);
        if (current != seenStep) {
            seenStep = current;
            seenSinceNs = nowNs;
            return 0;
        }
        return (current & 1) == 0 ? 0 : nowNs - seenSinceNs;
    }

    /** For the checker: times any stall afresh from {@code nowNs}, as if first seen then. */
    void restartClock(long nowNs) {
        seenStep = (long) STEP.getAcquire(this);
        seenSinceNs = nowNs;
    }
}
