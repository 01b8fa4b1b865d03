package io.dask4j.comm.tcp;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * The byte stream a {@link TcpComm} reads and writes: the socket itself for {@code tcp://} ({@link #plain}), or
 * TLS records over it for {@code tls://} ({@link TlsStream}). Everything else a comm does with its connection
 * (socket options, keepalive, the stall checks, the reset of an abort) works on the {@link SocketChannel} under it,
 * whatever the stream.
 *
 * <p><b>Threads.</b> One reader and one writer at a time, as {@link TcpComm} guarantees; both blocking.
 */
interface StreamChannel {

    /** Reads at least one byte into {@code target}, blocking until one is there; -1 at the end of the stream. */
    int read(ByteBuffer target) throws IOException;

    /** Writes some of {@code sources} (at least one byte if any remain), blocking until the kernel took them. */
    long write(ByteBuffer[] sources) throws IOException;

    /** Writes some of {@code source}, as {@link #write(ByteBuffer[])}. */
    int write(ByteBuffer source) throws IOException;

    /** Ends our direction of the stream after what was written (a FIN; for TLS a close_notify first). */
    void shutdownOutput() throws IOException;

    /** The socket itself: no layer between the comm and the kernel. */
    static StreamChannel plain(SocketChannel channel) {
        return new StreamChannel() {
            @Override
            public int read(ByteBuffer target) throws IOException {
                return channel.read(target);
            }

            @Override
            public long write(ByteBuffer[] sources) throws IOException {
                return channel.write(sources);
            }

            @Override
            public int write(ByteBuffer source) throws IOException {
                return channel.write(source);
            }

            @Override
            public void shutdownOutput() throws IOException {
                channel.shutdownOutput();
            }
        };
    }
}
