package io.dask4j.mpi.comm;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Send-side back-pressure of one comm: the MPI sends its writes posted that MPI has not completed yet, and
 * the bytes of those that were copied into pooled native memory. A write returns once its message is posted
 * (or queued), so without this bound a writer whose peer does not read would pile up copies and pending MPI
 * requests without end; each request is tested on every engine pass, so a pile of them also slows the
 * progress every other comm of the rank depends on: with only the byte budget, a writer of messages of
 * 2000 small frames to a rank that had paused this one (its inbox over budget) could leave 32,000 sends
 * pending, and a 2-rank job of 20 such messages moved 7-11 of them in a minute (Open MPI); with the count,
 * all 20 in a few seconds. A write may take its share while both
 * totals stay within {@link MpiTransportOptions#sendBudgetBytes} and {@link MpiTransportOptions#sendsInFlight}, or when nothing is out, so that a single
 * message of any size always passes. This is the MPI counterpart of a full TCP send buffer, with one gap: a
 * send of a few KiB completes once MPI has buffered it, so small messages to a paused rank never make the
 * writer wait (the receiving rank's MPI library holds them).
 *
 * <p>{@link #tryTake} and {@link #fits} from the comm's writer thread (one at a time, as a comm's writes are:
 * the check and the take need no lock then, since other threads only give back); {@link #give} from whichever
 * thread completes the send; the gauges from any thread. Lock-free on purpose: a waiting writer that drives
 * progress polls {@link #fits} in a spin loop, and on a monitor it starved the engine's completions, which
 * give back under the same monitor (a 2-rank flood stalled for a minute).
 */
final class SendBudget {

    private final long limitBytes;
    private final int limitSends;
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicInteger sends = new AtomicInteger();

    SendBudget(long limitBytes, int limitSends) {
        this.limitBytes = limitBytes;
        this.limitSends = limitSends;
    }

    /** Takes a message's share if it fits (or nothing is out); false if the writer must wait for completions. */
    boolean tryTake(long copiedBytes, int mpiSends) {
        if (!fits(copiedBytes, mpiSends)) {
            return false;
        }
        // Only gives can have happened since fits() (this is the one taker), and they leave more room.
        bytes.addAndGet(copiedBytes);
        sends.addAndGet(mpiSends);
        return true;
    }

    /** Whether a message of this share would be taken now. */
    boolean fits(long copiedBytes, int mpiSends) {
        long outBytes = bytes.get();
        int outSends = sends.get();
        return (outBytes == 0 && outSends == 0) || (outBytes + copiedBytes <= limitBytes && outSends + mpiSends <= limitSends);
    }

    /** Takes a message's share whether it fits or not (a writer that must not wait: the engine's own thread). */
    void take(long copiedBytes, int mpiSends) {
        bytes.addAndGet(copiedBytes);
        sends.addAndGet(mpiSends);
    }

    /** Gives back the share of a finished (or abandoned) message. */
    void give(long copiedBytes, int mpiSends) {
        if (copiedBytes != 0) {
            bytes.addAndGet(-copiedBytes);
        }
        sends.addAndGet(-mpiSends);
    }

    long outstandingBytes() {
        return bytes.get();
    }

    int outstandingSends() {
        return sends.get();
    }
}
