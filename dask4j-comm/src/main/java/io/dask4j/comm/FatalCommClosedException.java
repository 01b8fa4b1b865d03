package io.dask4j.comm;

/** A closed comm that retrying cannot fix (bad address, wrong protocol, failed authentication). */
public class FatalCommClosedException extends CommClosedException {
    public FatalCommClosedException(String message) {
        super(message);
    }

    public FatalCommClosedException(String message, Throwable cause) {
        super(message, cause);
    }
}
