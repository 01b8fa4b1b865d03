package io.dask4j.comm.conformance;

import io.dask4j.comm.Address;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.TlsOptions;
import io.dask4j.comm.tls.TestTls;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * The conformance suite over {@code tls://} on loopback, in both read modes: the tcp backend's behaviour must hold
 * unchanged with TLS between the socket and the comm. Both ends present the test cluster's self-signed certificate.
 */
class TlsConformanceTest extends CommConformanceSuite {

    private static final TlsOptions TLS = TlsOptions.of(TestTls.cluster().keyStores());

    @Override
    protected Address listenAddress() {
        return Address.tls("127.0.0.1", 0);
    }

    @Override
    protected CommOptions options() {
        return super.options().withTls(TLS);
    }

    /** A port that was free a moment ago: connects are refused. */
    @Override
    protected Address deadAddress() {
        try (ServerSocket probe = new ServerSocket()) {
            probe.bind(new InetSocketAddress("127.0.0.1", 0));
            return Address.tls("127.0.0.1", probe.getLocalPort());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
