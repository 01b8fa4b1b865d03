package io.dask4j.mpi.comm;

import io.dask4j.comm.Frame;
import io.dask4j.comm.Message;
import io.dask4j.comm.wire.MessageHeader;
import io.dask4j.mpi.engine.BufferPool;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * A message whose envelope has been matched and whose frames are arriving. It sits in its comm's inbox
 * from the moment the envelope is matched, so that messages are read in the order they were sent even
 * when a later small message completes before an earlier large one.
 *
 * <p>Mutated only on the thread driving the engine; {@link #isComplete} publishes it to the reader. A message
 * whose receive failed ({@link #receiveFailed}) never becomes complete, so no reader sees a half-written frame.
 */
final class IncomingMessage {

    private final MessageHeader header;
    private final MemorySegment[] frames;
    /** Per frame, the loan of its pooled memory (null: a plain frame); null if no frame is pooled. */
    private final BufferPool.Loan[] loans;
    private int pendingReceives;
    private boolean allMatched;
    private boolean failed;
    private volatile boolean complete;

    IncomingMessage(MessageHeader header, MemorySegment[] frames, BufferPool.Loan[] loans) {
        this.header = header;
        this.frames = frames;
        this.loans = loans;
    }

    MessageHeader header() {
        return header;
    }

    /** What the message costs its comm's byte window until read ({@link CreditWindow#cost}). */
    long bytes() {
        return CreditWindow.cost(header.frameBytes());
    }

    MemorySegment frame(int index) {
        return frames[index];
    }

    void receivePosted() {
        pendingReceives++;
    }

    /** Returns true when this completion made the message complete. */
    boolean receiveDone() {
        pendingReceives--;
        return checkComplete();
    }

    /**
     * A receive into this message failed (the engine broke): the message will never be complete, and its pooled
     * frames are abandoned rather than given back, since MPI may still be writing into them.
     */
    void receiveFailed() {
        if (failed) {
            return;
        }
        failed = true;
        if (loans != null) {
            for (BufferPool.Loan loan : loans) {
                if (loan != null) {
                    loan.abandon().run();
                }
            }
        }
    }

    /** Every chunk has been matched (some may still be arriving); returns true if now complete. */
    boolean matchedAll() {
        allMatched = true;
        return checkComplete();
    }

    boolean isComplete() {
        return complete;
    }

    Message toMessage() {
        List<Frame> list = new ArrayList<>(frames.length);
        for (int i = 0; i < frames.length; i++) {
            BufferPool.Loan loan = loans == null ? null : loans[i];
            list.add(loan == null ? new Frame(frames[i]) : Frame.releasable(frames[i], loan.giveBack()));
        }
        return header.toMessage(list);
    }

    private boolean checkComplete() {
        if (allMatched && pendingReceives == 0 && !complete && !failed) {
            complete = true;
            return true;
        }
        return false;
    }
}
