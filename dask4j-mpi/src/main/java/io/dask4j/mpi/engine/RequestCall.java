package io.dask4j.mpi.engine;

import java.lang.foreign.MemorySegment;

/**
 * A non-blocking MPI call (MPI_Isend, MPI_Ibarrier, ...) that writes its request handle into the given
 * slot and returns the MPI error code; see {@link ProgressEngine#track}. Runs on the thread driving the
 * engine.
 */
@FunctionalInterface
public interface RequestCall {
    int call(MemorySegment requestSlot);
}
