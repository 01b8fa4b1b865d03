package io.dask4j.comm.tcp;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/** Both ends of one loopback TCP connection, for tests of socket options; closes both and the listener. */
record LoopbackConnection(ServerSocketChannel server, SocketChannel dialled, SocketChannel accepted)
        implements AutoCloseable {

    static LoopbackConnection open() throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
        SocketChannel dialled = SocketChannel.open(server.getLocalAddress());
        return new LoopbackConnection(server, dialled, server.accept());
    }

    @Override
    public void close() throws IOException {
        try (server; dialled; accepted) {
            // closes all three, whatever fails
        }
    }
}
