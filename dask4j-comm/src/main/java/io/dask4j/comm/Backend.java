package io.dask4j.comm;

import java.util.function.Consumer;

/**
 * A communication backend, selected by a URI scheme ({@code tcp}, {@code inproc}, {@code mpi}).
 * Implementations are discovered with {@link java.util.ServiceLoader} and must be thread-safe.
 *
 * <p>This is the implementor's API: backends make raw comms. Users call {@link Comms}, which adds the
 * handshake, authentication, retries and the wire-protocol limits on top.
 */
public interface Backend {

    /** The URI scheme this backend serves, lower case. */
    String scheme();

    Connector connector();

    /**
     * A listener on {@code address} that hands each raw accepted comm to {@code onAccept}, called on a
     * thread of the listener's choosing that the handler must not block for long.
     */
    Listener listener(Address address, CommOptions options, Consumer<Comm> onAccept);

    /** Resolves host names to what the backend connects to; identity by default. */
    default Address resolve(Address address) {
        return address;
    }
}
