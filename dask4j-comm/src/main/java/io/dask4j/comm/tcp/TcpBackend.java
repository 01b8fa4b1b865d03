package io.dask4j.comm.tcp;

import io.dask4j.comm.Address;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommOptions;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.channels.SocketChannel;
import java.time.Duration;

/**
 * The {@code tcp://host:port} backend (IPv6 hosts in brackets). Listeners bind exactly the host they
 * are given, so {@code tcp://127.0.0.1:0} (the usual choice, see {@link #LOOPBACK_ANY_PORT}) stays on
 * loopback and only {@code tcp://0.0.0.0:port} opens to the network; port 0 picks a free port.
 * Connects make one attempt with the given timeout ({@link io.dask4j.comm.Comms#connect} retries).
 * Native errors are translated in one place, {@code TcpErrors}. Thread-safe.
 */
public final class TcpBackend extends SocketBackend {

    public static final String SCHEME = "tcp";
    /** Loopback, any free port: the default listen address. */
    public static final Address LOOPBACK_ANY_PORT = Address.tcp("127.0.0.1", 0);

    public TcpBackend() {
        super(SocketSecurity.PLAIN);
    }

    /** One connect attempt; the comm's stream is {@code security}'s (plain, or TLS). */
    static Comm connectOnce(Address address, Duration timeout, CommOptions options, SocketSecurity security) {
        InetSocketAddress target = socketAddress(address);
        security.checkClient(options);
        SocketChannel channel = null;
        try {
            channel = SocketChannel.open();
            long ms = Math.clamp(timeout.toMillis(), 1, Integer.MAX_VALUE);
            channel.socket().connect(target, (int) ms);
            Address local = address(address.scheme(), (InetSocketAddress) channel.getLocalAddress());
            return new TcpComm(channel, security.client(channel, address, options), local, address, options);
        } catch (IOException | RuntimeException e) {
            if (channel != null) {
                try {
                    channel.close();
                } catch (IOException ignored) {
                    // The attempt failed already; report that.
                }
            }
            throw TcpErrors.translate(e, "connect to " + address);
        }
    }

    /** Resolves {@code tcp://host:port} (or {@code tls://}); an unknown host is fatal (retrying will not make it known). */
    static InetSocketAddress socketAddress(Address address) {
        if (!address.scheme().equals(SCHEME) && !address.scheme().equals(TlsBackend.SCHEME)) {
            throw new IllegalArgumentException("not a tcp address: " + address);
        }
        InetSocketAddress resolved = new InetSocketAddress(address.host(), address.port());
        if (resolved.isUnresolved()) {
            throw TcpErrors.translate(new UnknownHostException(address.host()), "cannot resolve " + address);
        }
        return resolved;
    }

    static Address address(String scheme, InetSocketAddress socket) {
        String host = socket.getAddress().getHostAddress();
        int scope = host.indexOf('%');
        return Address.hostPort(scheme, scope < 0 ? host : host.substring(0, scope), socket.getPort());
    }
}
