package io.dask4j.comm.conformance;

import io.dask4j.comm.Address;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/** The conformance suite over {@code tcp://} on loopback; raw-socket cases are in {@code TcpWireTest}. */
class TcpConformanceTest extends CommConformanceSuite {

    @Override
    protected Address listenAddress() {
        return Address.tcp("127.0.0.1", 0);
    }

    /** A port that was free a moment ago: connects are refused. */
    @Override
    protected Address deadAddress() {
        try (ServerSocket probe = new ServerSocket()) {
            probe.bind(new InetSocketAddress("127.0.0.1", 0));
            return Address.tcp("127.0.0.1", probe.getLocalPort());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
