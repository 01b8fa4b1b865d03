package io.dask4j.comm;

import java.time.Duration;

/**
 * Opens raw (not yet handshaken) comms for one backend. Thread-safe.
 *
 * <p>Called by {@link Comms#connect}, which does the retrying and the handshake; backends only make
 * one attempt and translate their native errors: a transient failure (refused, reset, unreachable for
 * now) as {@link CommClosedException}, a permanent one (bad address, unknown host) as {@link
 * FatalCommClosedException}.
 */
public interface Connector {
    Comm connect(Address address, Duration timeout, CommOptions options);
}
