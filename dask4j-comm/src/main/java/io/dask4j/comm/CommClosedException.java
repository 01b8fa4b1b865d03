package io.dask4j.comm;

/**
 * The comm is closed, by either end, or broke. Pending and later reads and writes raise it. {@code
 * connect} retries it until its deadline unless it is a {@link FatalCommClosedException}.
 */
public class CommClosedException extends CommException {
    public CommClosedException(String message) {
        super(message);
    }

    public CommClosedException(String message, Throwable cause) {
        super(message, cause);
    }
}
