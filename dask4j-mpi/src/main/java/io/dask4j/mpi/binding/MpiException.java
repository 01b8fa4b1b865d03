package io.dask4j.mpi.binding;

/**
 * An MPI call failed. {@link #errorCode()} is the MPI error code the call returned (or {@code -1} when the
 * failure happened before MPI could be called, e.g. no library found); the message carries the text of
 * {@code MPI_Error_string} and the name of the call.
 *
 * <p>Unchecked: thrown from the binding on any thread that called it.
 */
public class MpiException extends RuntimeException {

    private final int errorCode;

    public MpiException(String message) {
        this(-1, message, null);
    }

    public MpiException(int errorCode, String message) {
        this(errorCode, message, null);
    }

    public MpiException(int errorCode, String message, Throwable cause) {
        super(message, cause);
        this.errorCode = errorCode;
    }

    /** The MPI error code, or -1 when none applies. */
    public int errorCode() {
        return errorCode;
    }
}
