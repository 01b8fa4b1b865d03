package io.dask4j.comm.tcp;

import java.time.Duration;
import java.util.function.Consumer;

/**
 * How far the message one comm is reading has got, watched by {@link WriteStallChecker#SHARED} like a write: a
 * message that has started (its first byte arrived) and then goes {@code timeout} without another byte aborts the
 * comm, so a peer that announces a large frame and sends no more cannot hold its share of the {@link
 * io.dask4j.comm.ReadBudget} (or its connection) for ever. Between messages, and while the reader waits on this side
 * (for read budget), nothing is timed: an idle authenticated peer is fine.
 *
 * <p><b>Threads.</b> {@link #bytesArrived()} and {@link #paused()}: the comm's reader only (one at a time). The
 * checker reads the counter from its thread.
 */
final class ReadProgress implements WriteStallChecker.Watched {
    private final WriteProgress steps = new WriteProgress();
    private final Consumer<Duration> onStalled;
    private final String owner;
    private boolean inMessage;

    /** {@code onStalled} aborts the comm (called on the checker's thread; must not block). */
    ReadProgress(String owner, Consumer<Duration> onStalled) {
        this.owner = owner;
        this.onStalled = onStalled;
    }

    /** Some bytes of a message arrived: starts the message's clock, or restarts it. */
    void bytesArrived() {
        if (inMessage) {
            steps.advanced();
        } else {
            inMessage = true;
            steps.started();
        }
    }

    /** The message ended, or the reader waits on this side: stop the clock. */
    void paused() {
        if (inMessage) {
            inMessage = false;
            steps.finished();
        }
    }

    @Override
    public WriteProgress writeProgress() {
        return steps;
    }

    @Override
    public void onWriteStalled(Duration timeout) {
        onStalled.accept(timeout);
    }

    @Override
    public String toString() {
        return owner + " (reading a message)";
    }
}
