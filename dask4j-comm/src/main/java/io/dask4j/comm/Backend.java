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

    /**
     * Whether others than this job's processes may connect to this backend's listeners (tcp: anyone who can reach
     * the port), so that {@link Comms#listen} refuses to start one without a secret unless the options opt out
     * ({@link CommOptions#insecureNoAuth()}). False for backends only this process or job can reach (inproc, mpi).
     */
    default boolean reachableByOthers() {
        return false;
    }

    /**
     * What a waiting thread of this process can do to move this backend's messages ({@link CallerProgress}); {@link
     * CallerProgress#NONE} for backends that deliver on their own threads, and for a backend not started here.
     */
    default CallerProgress callerProgress() {
        return CallerProgress.NONE;
    }

    /** Resolves host names to what the backend connects to; identity by default. */
    default Address resolve(Address address) {
        return address;
    }
}
