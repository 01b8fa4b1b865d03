package io.dask4j.mpi.comm;

import io.dask4j.mpi.binding.Mpi;
import io.dask4j.mpi.engine.BufferPool;
import io.dask4j.mpi.engine.Completion;
import io.dask4j.mpi.engine.Outbound;
import io.dask4j.mpi.engine.ProgressEngine;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * One envelope plus the frame chunks that follow it, posted together by the engine so that they are
 * contiguous in the sender's stream to {@code dest} (the receiver relies on it). Owns the pooled buffers
 * it sends from and gives them back when every request has completed.
 *
 * <p>{@link #post} and {@link #onComplete} run on the thread driving the engine ({@link #postDirect} and,
 * when its send completes at once, {@link #onComplete} on the writer's thread); {@link #isDone} and {@link
 * #error} may be read from any thread.
 */
final class OutgoingMessage implements Outbound, Completion {

    private final MpiComm comm; // null for replies that belong to no comm (REJECT, ABORT)
    private final int dest;
    private final MemorySegment envelope;
    private final List<MemorySegment> chunks;
    private final List<MemorySegment> pooled;
    private final BufferPool pool;
    private int remaining;
    private MemorySegment directScratch;
    private volatile boolean done;
    private volatile int error;
    private volatile Thread waiter;
    /** Bytes taken from the comm's {@link SendBudget} for this message, given back when it is done. */
    private long budgetBytes;

    OutgoingMessage(MpiComm comm, int dest, MemorySegment envelope, List<MemorySegment> chunks, List<MemorySegment> pooled,
                    BufferPool pool) {
        this.comm = comm;
        this.dest = dest;
        this.envelope = envelope;
        this.chunks = chunks;
        this.pooled = pooled;
        this.pool = pool;
    }

    /** True when the message is one MPI message (no frame chunks follow the envelope). */
    boolean isSingle() {
        return chunks.isEmpty();
    }

    /**
     * Sends a single-message message from the writer's own thread, without the engine's lock (see {@link
     * ProgressEngine#isendDirect}); the comm has checked that nothing of its own is still queued, so order holds.
     */
    void postDirect(ProgressEngine engine) {
        directScratch = pool.acquire(16);
        remaining = 1;
        int rc = engine.isendDirect(envelope, dest, MpiTransport.TAG_ENVELOPE, directScratch, this);
        if (rc != Mpi.SUCCESS) {
            remaining = 0;
            failed(engine, rc);
            finish();
        }
    }

    @Override
    public void post(ProgressEngine engine) {
        int rc;
        if (chunks.isEmpty()) {
            rc = postAll(engine);
        } else {
            int[] result = new int[1];
            engine.contiguous(dest, () -> result[0] = postAll(engine));
            rc = result[0];
        }
        if (rc != Mpi.SUCCESS) {
            failed(engine, rc);
        }
        // Only now, with the envelope and every chunk posted: a direct send checks for nothing queued and
        // skips the engine's lock, so counting off earlier let the writer's next message go out while this one
        // was still being posted (see also ProgressEngine.contiguous, which keeps other comms' direct sends out).
        if (comm != null) {
            comm.onPosted();
        }
        if (remaining == 0) {
            finish();
        }
    }

    /** Posts the envelope, then every chunk; the MPI error code of the first that failed, else success. */
    private int postAll(ProgressEngine engine) {
        int rc = engine.isend(envelope, dest, MpiTransport.TAG_ENVELOPE, this);
        if (rc == Mpi.SUCCESS) {
            remaining++;
            for (MemorySegment chunk : chunks) {
                rc = engine.isend(chunk, dest, MpiTransport.TAG_FRAME, this);
                if (rc != Mpi.SUCCESS) {
                    break;
                }
                remaining++;
            }
        }
        return rc;
    }

    private void failed(ProgressEngine engine, int rc) {
        error = rc;
        if (comm != null) {
            comm.onSendFailed(engine.mpi().errorString(rc) + " (MPI error " + rc + ")");
        }
    }

    @Override
    public void onComplete(int errorCode) {
        if (errorCode != Mpi.SUCCESS) {
            error = errorCode;
        }
        if (--remaining == 0) {
            finish();
        }
    }

    /** Records the send-budget bytes this message holds; the writer, before handing it over. */
    void budgetBytes(long bytes) {
        budgetBytes = bytes;
    }

    long budgetBytes() {
        return budgetBytes;
    }

    /** Registers the thread to unpark when the message is done; call before waiting. */
    void waitingThread(Thread thread) {
        waiter = thread;
    }

    boolean isDone() {
        return done;
    }

    int error() {
        return error;
    }

    private void finish() {
        for (MemorySegment buffer : pooled) {
            pool.release(buffer);
        }
        if (directScratch != null) {
            pool.release(directScratch);
        }
        done = true;
        if (comm != null) {
            comm.onSendDone(this);
        }
        Thread t = waiter;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }
}
