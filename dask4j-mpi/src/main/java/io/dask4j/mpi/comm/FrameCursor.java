package io.dask4j.mpi.comm;

import java.lang.foreign.MemorySegment;

/**
 * Where the next frame chunks from one source go, in the order the DATA envelope announced them (MPI
 * keeps one source's messages in order). A null message means drop them (unknown or closed comm). Used
 * on the thread driving the engine only.
 */
final class FrameCursor {
    final MpiComm comm;
    final IncomingMessage message;
    final long[] lengths;
    final MemorySegment[] targets;
    private final long chunkBytes;
    int frame;
    long offset;
    /** A chunk of another size than announced arrived: the peer broke the protocol. */
    boolean corrupt;

    FrameCursor(MpiComm comm, IncomingMessage message, long[] lengths, MemorySegment[] targets, long chunkBytes) {
        this.chunkBytes = chunkBytes;
        this.comm = comm;
        this.message = message;
        this.lengths = lengths;
        this.targets = targets;
        skipEmpty();
    }

    boolean done() {
        return frame >= lengths.length;
    }

    /** The slice the next chunk of {@code bytes} goes to, or null to drop it. */
    MemorySegment next(long bytes) {
        long expected = Math.min(chunkBytes, lengths[frame] - offset);
        MemorySegment target = targets[frame];
        corrupt |= bytes != expected;
        MemorySegment slice = target == null || bytes != expected ? null : target.asSlice(offset, bytes);
        offset += expected;
        if (offset >= lengths[frame]) {
            frame++;
            offset = 0;
            skipEmpty();
        }
        return slice;
    }

    private void skipEmpty() {
        while (frame < lengths.length && lengths[frame] == 0) {
            frame++;
        }
    }
}
