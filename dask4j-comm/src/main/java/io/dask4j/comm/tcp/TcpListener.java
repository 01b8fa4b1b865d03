package io.dask4j.comm.tcp;

import io.dask4j.comm.Address;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.HostAddresses;
import io.dask4j.comm.Listener;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A tcp (or tls) listener: a {@link ServerSocketChannel} and an accept loop on its own virtual thread, which
 * wraps each accepted socket in a {@link TcpComm} (over the stream of its {@link SocketSecurity}: no TLS work happens
 * on this thread) and hands it to {@code onAccept}. {@link #stop()}
 * closes the socket (connects are then refused; queued, unaccepted ones are reset) and waits briefly for
 * the loop to end. Thread-safe.
 */
final class TcpListener implements Listener {

    private static final Logger LOG = LoggerFactory.getLogger(TcpListener.class);
    private static final int BACKLOG = 1024;

    private final Address requested;
    private final CommOptions options;
    private final Consumer<Comm> onAccept;
    private final SocketSecurity security;
    private volatile ServerSocketChannel server;
    private volatile Address bound;
    private Thread acceptor;

    TcpListener(Address requested, CommOptions options, Consumer<Comm> onAccept) {
        this(requested, options, onAccept, SocketSecurity.PLAIN);
    }

    TcpListener(Address requested, CommOptions options, Consumer<Comm> onAccept, SocketSecurity security) {
        this.security = security;
        this.requested = requested;
        this.options = options;
        this.onAccept = onAccept;
    }

    @Override
    public synchronized void start() {
        if (server != null) {
            return;
        }
        InetSocketAddress socketAddress = TcpBackend.socketAddress(requested);
        ServerSocketChannel channel = null;
        try {
            channel = ServerSocketChannel.open();
            channel.bind(socketAddress, BACKLOG);
            // Accepted connections inherit it: one descriptor lookup now instead of one per accept.
            TcpUserTimeout.applyToListener(channel, options.deadPeerTimeout());
            int port = ((InetSocketAddress) channel.getLocalAddress()).getPort();
            bound = Address.hostPort(security.scheme(), requested.host(), port);
        } catch (IOException e) {
            closeQuietly(channel);
            throw TcpErrors.translate(e, "cannot listen on " + requested);
        }
        server = channel;
        ServerSocketChannel s = channel;
        acceptor = Thread.ofVirtual().name("dask4j-" + security.scheme() + "-accept-" + bound).start(() -> acceptLoop(s));
    }

    private void acceptLoop(ServerSocketChannel s) {
        while (s.isOpen()) {
            SocketChannel channel;
            try {
                channel = s.accept();
            } catch (IOException | OutOfMemoryError e) {
                if (s.isOpen()) {
                    // Out of file descriptors, or of memory for the socket's objects: back off instead of spinning on
                    // the error, and keep accepting once it passes; the loop must not end with the port open but deaf.
                    LOG.warn("accept on {} failed: {}", bound, e.toString());
                    pause();
                }
                continue;
            }
            try {
                InetSocketAddress remote = (InetSocketAddress) channel.getRemoteAddress();
                InetSocketAddress localSocket = (InetSocketAddress) channel.getLocalAddress();
                String scheme = security.scheme();
                Comm comm = TcpComm.accepted(channel, security.server(channel, options),
                        TcpBackend.address(scheme, localSocket), TcpBackend.address(scheme, remote), options);
                onAccept.accept(comm);
            } catch (IOException | RuntimeException | OutOfMemoryError e) {
                // OutOfMemoryError too ("Cannot reserve direct buffer memory" for a connection's buffers): it
                // costs this connection, not the loop, which would otherwise end and leave the port open and deaf.
                LOG.warn("dropping connection accepted on {}: {}", bound, e.toString());
                closeQuietly(channel);
                if (e instanceof OutOfMemoryError) {
                    pause();
                }
            }
        }
    }

    @Override
    public void stop() {
        Thread loop;
        synchronized (this) {
            closeQuietly(server);
            loop = acceptor;
        }
        if (loop != null) {
            try {
                loop.join(1_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public Address listenAddress() {
        Address address = bound;
        return address == null ? requested : address;
    }

    /** A wildcard bind (0.0.0.0, ::) is reached through this host's address for peers ({@link HostAddresses}). */
    @Override
    public Address contactAddress() {
        Address address = listenAddress();
        try {
            if (InetAddress.getByName(address.host()).isAnyLocalAddress()) {
                return Address.hostPort(address.scheme(), HostAddresses.forPeers(), address.port());
            }
        } catch (UnknownHostException e) {
            return address;
        }
        return address;
    }

    private static void pause() {
        try {
            Thread.sleep(10);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(java.io.Closeable c) {
        if (c != null) {
            try {
                c.close();
            } catch (IOException ignored) {
                // Closing is best effort here.
            }
        }
    }

    @Override
    public String toString() {
        return "TcpListener[" + listenAddress() + "]";
    }
}
