package io.dask4j.comm;

/** {@code connect} gave up at its deadline; the message names the address and the last error seen. */
public class ConnectTimeoutException extends CommException {
    public ConnectTimeoutException(String message, Throwable lastError) {
        super(message, lastError);
    }
}
