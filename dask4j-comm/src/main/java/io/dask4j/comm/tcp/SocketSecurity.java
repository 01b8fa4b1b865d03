package io.dask4j.comm.tcp;

import io.dask4j.comm.Address;
import io.dask4j.comm.CommOptions;
import java.nio.channels.SocketChannel;

/**
 * What a tcp-family backend puts between a connected socket and its {@link TcpComm}: nothing ({@link #PLAIN},
 * {@code tcp://}) or TLS ({@link #TLS}, {@code tls://}). Everything else (framing, budgets, timeouts, caps, closing,
 * push mode) is the one tcp implementation. Stateless; any thread.
 */
enum SocketSecurity {
    PLAIN,
    TLS;

    /** The URI scheme of the backend. */
    String scheme() {
        return this == PLAIN ? "tcp" : "tls";
    }

    /** Fails, saying why, if a listener with {@code options} could not serve anyone (TLS without a certificate). */
    void checkListener(Address address, CommOptions options) {
        if (this == TLS) {
            options.requireTls().requireCertificate("listen on " + address);
        }
    }

    /** Fails, saying why, before a connect that could not succeed (tls without TLS settings). */
    void checkClient(CommOptions options) {
        if (this == TLS) {
            options.requireTls();
        }
    }

    /** The stream of a connection we made to {@code target}. */
    StreamChannel client(SocketChannel channel, Address target, CommOptions options) {
        return this == PLAIN ? StreamChannel.plain(channel)
                : new TlsStream(channel, options.requireTls().clientEngine(target.host(), target.port()));
    }

    /** The stream of a connection a listener accepted. */
    StreamChannel server(SocketChannel channel, CommOptions options) {
        return this == PLAIN ? StreamChannel.plain(channel) : new TlsStream(channel, options.requireTls().serverEngine());
    }
}
