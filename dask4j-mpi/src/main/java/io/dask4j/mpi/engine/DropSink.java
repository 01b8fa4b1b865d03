package io.dask4j.mpi.engine;

import io.dask4j.mpi.binding.Posix;

import java.lang.foreign.MemorySegment;

/**
 * Memory that large messages nobody wants (frames for an unknown or closed comm) are received into: a matched
 * message must still be received whole. One idle buffer, the largest given back, is kept for the next such
 * message, and unmapped once it has been idle for {@link #IDLE_NANOS}. Buffers are mapped with {@code mmap}, so
 * only the pages MPI writes are ever touched (a Java arena would zero up to a chunk, 1 GiB, on the engine thread),
 * and are unmapped explicitly (a GC, which off-heap memory does not provoke, would free a Java arena's).
 *
 * <p>Used only by the thread driving the engine. A buffer is taken per message; while several such receives are
 * in flight each has its own (MPI forbids overlapping buffers of pending receives).
 */
final class DropSink {

    /** How long the idle buffer is kept: the chunks of one dropped message come within far less. */
    static final long IDLE_NANOS = 1_000_000_000L;

    private MemorySegment idle;
    private long idleSince;

    /** A buffer of at least {@code bytes} bytes; {@link #giveBack} it once MPI has finished writing it. */
    MemorySegment take(long bytes) {
        MemorySegment buffer = idle;
        if (buffer != null && buffer.byteSize() >= bytes) {
            idle = null;
            return buffer;
        }
        return Posix.mmap(bytes);
    }

    /** Returns a buffer from {@link #take}: kept if it is the largest, else unmapped. */
    void giveBack(MemorySegment buffer, long nowNanos) {
        if (idle != null && idle.byteSize() >= buffer.byteSize()) {
            Posix.munmap(buffer);
            return;
        }
        if (idle != null) {
            Posix.munmap(idle);
        }
        idle = buffer;
        idleSince = nowNanos;
    }

    /** Whether a buffer is kept idle (then {@link #trim} may have work). */
    boolean holdsIdle() {
        return idle != null;
    }

    /** Unmaps the idle buffer if it has been idle for {@link #IDLE_NANOS}. */
    void trim(long nowNanos) {
        if (idle != null && nowNanos - idleSince >= IDLE_NANOS) {
            Posix.munmap(idle);
            idle = null;
        }
    }

    /** The idle buffer, for tests. */
    MemorySegment idleBuffer() {
        return idle;
    }
}
