package io.dask4j.mpi.engine;

/**
 * Called once when a tracked MPI request completes, on whichever thread drives the engine at that
 * moment, under the engine's lock. Implementations only flip state and wake threads: no blocking, no
 * user code, no MPI calls other than through the engine.
 */
@FunctionalInterface
public interface Completion {
    /** @param errorCode MPI_SUCCESS (0) or the error the request (or the engine) failed with */
    void onComplete(int errorCode);
}
