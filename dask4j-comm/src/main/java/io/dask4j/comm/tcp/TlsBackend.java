package io.dask4j.comm.tcp;

/**
 * The {@code tls://host:port} backend: the tcp backend with TLS 1.3 between the socket and the comm ({@link
 * TlsStream}), configured by {@link io.dask4j.comm.CommOptions#tls()}. Addresses, binding, connection handling and
 * every limit are the tcp backend's; the TLS handshake runs within the comm layer's handshake, under its timeout.
 * Listeners need a certificate and key ({@link io.dask4j.comm.TlsOptions#requireCertificate}), and a secret unless
 * mutual TLS stands in for it ({@link io.dask4j.comm.TlsOptions#provesMembership()}). Thread-safe.
 */
public final class TlsBackend extends SocketBackend {

    public static final String SCHEME = "tls";

    public TlsBackend() {
        super(SocketSecurity.TLS);
    }
}
