package io.dask4j.comm;

/**
 * The peer sent bytes that break the wire protocol (malformed header, oversized length, unknown
 * version) or a message that lacks what its op requires. The connection that sent them is dropped;
 * everyone else keeps being served.
 */
public class ProtocolException extends FatalCommClosedException {
    public ProtocolException(String message) {
        super(message);
    }

    public ProtocolException(String message, Throwable cause) {
        super(message, cause);
    }
}
