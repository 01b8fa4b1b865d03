package io.dask4j.comm;

/** The handshake did not complete within {@link CommOptions#handshakeTimeout()}; not retried. */
public class HandshakeTimeoutException extends FatalCommClosedException {
    public HandshakeTimeoutException(String message) {
        super(message);
    }
}
