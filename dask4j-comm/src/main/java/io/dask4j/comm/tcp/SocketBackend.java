package io.dask4j.comm.tcp;

import io.dask4j.comm.Address;
import io.dask4j.comm.Backend;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.Connector;
import io.dask4j.comm.Listener;
import java.util.function.Consumer;

/**
 * The one implementation behind {@code tcp://} and {@code tls://}: the backends differ only in their {@link
 * SocketSecurity}. Anyone who can reach the port can connect, so listeners need a secret unless the options opt out
 * (or, on tls, mutual TLS stands in for it). Thread-safe.
 */
abstract sealed class SocketBackend implements Backend permits TcpBackend, TlsBackend {

    private final SocketSecurity security;
    private final Connector connector;

    SocketBackend(SocketSecurity security) {
        this.security = security;
        this.connector = (address, timeout, options) -> TcpBackend.connectOnce(address, timeout, options, security);
    }

    @Override
    public final String scheme() {
        return security.scheme();
    }

    @Override
    public final boolean reachableByOthers() {
        return true;
    }

    @Override
    public final Connector connector() {
        return connector;
    }

    /** @throws io.dask4j.comm.TlsException on tls, if the options have no TLS settings or no certificate of our own */
    @Override
    public final Listener listener(Address address, CommOptions options, Consumer<Comm> onAccept) {
        TcpBackend.socketAddress(address);
        security.checkListener(address, options);
        return new TcpListener(address, options, onAccept, security);
    }
}
