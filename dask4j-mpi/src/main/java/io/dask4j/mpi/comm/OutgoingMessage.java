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
 * <p>{@link #post} and {@link #onComplete} run on the thread driving the engine; {@link #isDone} and {@link
 * #error} may be read from any thread.
 */
final class OutgoingMessage implements Outbound, Completion {

    private final MpiComm comm; // null for replies that belong to no comm (REJECT, ABORT)
    private final int dest;
    private final int envelopeTag;
    private final MemorySegment envelope;
    private final List<MemorySegment> chunks;
    private final List<MemorySegment> pooled;
    private final BufferPool pool;
    private int remaining;
    private volatile boolean done;
    private volatile int error;
    private volatile Thread waiter;
    /** What this message cost its comm's credit, and its MPI sends (given back to {@link PeerSendOrder} when done). */
    private long budgetBytes;
    private int budgetSends;

    OutgoingMessage(MpiComm comm, int dest, MemorySegment envelope, List<MemorySegment> chunks, List<MemorySegment> pooled,
                    BufferPool pool) {
        this(comm, dest, MpiTransport.TAG_ENVELOPE, envelope, chunks, pooled, pool);
    }

    OutgoingMessage(MpiComm comm, int dest, int envelopeTag, MemorySegment envelope, List<MemorySegment> chunks,
                    List<MemorySegment> pooled, BufferPool pool) {
        this.comm = comm;
        this.dest = dest;
        this.envelopeTag = envelopeTag;
        this.envelope = envelope;
        this.chunks = chunks;
        this.pooled = pooled;
        this.pool = pool;
    }

    /** True when the message is one MPI message (no frame chunks follow the envelope). */
    boolean isSingle() {
        return chunks.isEmpty();
    }

    @Override
    public void post(ProgressEngine engine) {
        int rc = postAll(engine);
        if (rc != Mpi.SUCCESS) {
            failed(engine, rc);
        }
        // Only now, with the envelope and every chunk posted: a writer posts its next message itself only when
        // nothing of its comm is queued (MpiComm.write), so the count must not drop while this one is in the queue.
        if (comm != null) {
            comm.onPosted();
        }
        if (remaining == 0) {
            finish();
        }
    }

    /** Posts the envelope, then every chunk; the MPI error code of the first that failed, else success. */
    private int postAll(ProgressEngine engine) {
        int rc = engine.isend(envelope, dest, envelopeTag, this);
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

    /** Records the send-budget share this message holds; the writer, before handing it over. */
    void budget(long bytes, int sends) {
        budgetBytes = bytes;
        budgetSends = sends;
    }

    long budgetBytes() {
        return budgetBytes;
    }

    int budgetSends() {
        return budgetSends;
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
