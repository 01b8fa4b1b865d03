package io.dask4j.comm;

/**
 * Accepts comms on one address. {@link #start()} binds; {@link #stop()} unbinds and makes pending
 * connects fail fast. Thread-safe.
 *
 * <p>Listeners made by {@link Comms#listen} hand each accepted comm to their handler only after a
 * successful handshake; a failed or timed-out handshake never reaches the handler, and the listener
 * keeps serving. The handler runs on its own virtual thread per comm and may block.
 */
public interface Listener extends AutoCloseable {

    void start();

    void stop();

    /** The address actually bound (a port 0 is replaced by the chosen port). */
    Address listenAddress();

    /** The address peers should use to reach this listener (a wildcard host replaced by a real one). */
    default Address contactAddress() {
        return listenAddress();
    }

    @Override
    default void close() {
        stop();
    }
}
