package io.dask4j.launcher;

/**
 * A rank of an MPI-launched cluster could not start or keep running its role (the scheduler did not
 * start, a worker could not register, a worker rank was lost). The message says which rank and why.
 */
public final class LauncherException extends RuntimeException {
    public LauncherException(String message) {
        super(message);
    }

    public LauncherException(String message, Throwable cause) {
        super(message, cause);
    }
}
