package io.dask4j.mpi.binding;

import java.lang.foreign.MemorySegment;

/**
 * The point-to-point part of MPI that the progress engine drives: non-blocking sends and receives, matched
 * probes, request tests, and the ABI facts needed to read their out-parameters. {@link Mpi} implements it
 * over the real library (FFM downcalls); tests implement it in-process (ranks as threads of one JVM), so
 * the engine, the demux and the comms run without {@code mpirun}.
 *
 * <p>Every call has MPI's C signature: handles are {@code long}s laid out as {@link #abi()} says, out-
 * parameters are caller-owned native segments, and the MPI error code is returned. Buffers of non-blocking
 * calls must stay alive until their request completes.
 *
 * <p><b>Threads.</b> Whatever MPI's thread level allows; in dask4j only the thread driving the progress
 * engine (under its lock) calls these.
 */
public interface PointToPoint {

    /** The ABI whose handles, constants and status layout every call uses. */
    MpiAbi abi();

    /** MPI_Comm_size; throws {@link MpiException} on failure. */
    int commSize(long comm);

    int isend(MemorySegment buf, int count, long datatype, int dest, int tag, long comm, MemorySegment request);

    int irecv(MemorySegment buf, int count, long datatype, int source, int tag, long comm, MemorySegment request);

    int improbe(int source, int tag, long comm, MemorySegment flag, MemorySegment message, MemorySegment status);

    /** MPI_Mrecv of a message known to have arrived (a short critical downcall in the real binding). */
    int mrecv(MemorySegment buf, int count, long datatype, MemorySegment message, MemorySegment status);

    /** MPI_Mrecv of a message that may wait on a rendezvous (a downcall that lets safepoints through). */
    int mrecvBlocking(MemorySegment buf, int count, long datatype, MemorySegment message, MemorySegment status);

    /** MPI_Mrecv into a heap segment (the GC is held off until the message has arrived). */
    int mrecvHeap(MemorySegment buf, int count, long datatype, MemorySegment message, MemorySegment status);

    int imrecv(MemorySegment buf, int count, long datatype, MemorySegment message, MemorySegment request);

    int test(MemorySegment request, MemorySegment flag, MemorySegment status);

    int testsome(int incount, MemorySegment requests, MemorySegment outcount, MemorySegment indices, MemorySegment statuses);

    int cancel(MemorySegment request);

    int getCount(MemorySegment status, long datatype, MemorySegment count);

    /** MPI_Error_string's text for an error code (never throws). */
    String errorString(int errorCode);

    /**
     * Open MPI only: switches its {@code sched_yield()} after an empty progress call; false (nothing done)
     * where there is no such switch. See {@link Mpi#openMpiIdleYield}.
     */
    default boolean openMpiIdleYield(boolean on) {
        return false;
    }

    /** Throws an {@link MpiException} with MPI's text if {@code rc} is not MPI_SUCCESS. */
    default void check(int rc, String call) {
        if (rc != Mpi.SUCCESS) {
            throw new MpiException(rc, call + " failed: " + errorString(rc) + " (MPI error " + rc + ")");
        }
    }
}
