package io.dask4j.comm;

/** Base of every error the comm layer raises. Unchecked: comm code runs in handlers and lambdas. */
public class CommException extends RuntimeException {
    public CommException(String message) {
        super(message);
    }

    public CommException(String message, Throwable cause) {
        super(message, cause);
    }
}
