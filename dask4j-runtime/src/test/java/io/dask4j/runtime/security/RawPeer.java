package io.dask4j.runtime.security;

import io.dask4j.comm.Address;
import io.dask4j.comm.Message;
import io.dask4j.comm.wire.WireCodec;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/**
 * An attacker on a plain socket: writes whatever bytes it likes (wire-format messages encoded by hand with the
 * codec, or raw bytes), never runs the handshake or any dask4j client code, and records everything it is sent.
 * One thread per instance.
 */
final class RawPeer implements AutoCloseable {

    private final Socket socket;
    private final ByteArrayOutputStream received = new ByteArrayOutputStream();

    private RawPeer(Socket socket) {
        this.socket = socket;
    }

    static RawPeer connect(Address address) throws IOException {
        Socket s = new Socket(address.host(), address.port());
        s.setSoTimeout(30_000);
        return new RawPeer(s);
    }

    /** Writes one message in the wire format (header only; its frames, if announced, are for the caller to send). */
    RawPeer send(Message message) throws IOException {
        return sendBytes(new WireCodec().encodeHeaderToArray(message));
    }

    /** Writes {@code bytes}; a server that already dropped the connection makes the write fail, which is ignored. */
    RawPeer sendBytes(byte[] bytes) throws IOException {
        try {
            socket.getOutputStream().write(bytes);
            socket.getOutputStream().flush();
        } catch (SocketException droppedAlready) {
            // What was sent before was refused; readUntilClosed() sees the end.
        }
        return this;
    }

    /**
     * Reads until the other end closes or resets the connection (failing after 30 s of silence) and returns whether
     * it did: true, since a timeout throws.
     */
    boolean readUntilClosed() throws IOException {
        InputStream in = socket.getInputStream();
        byte[] buffer = new byte[8192];
        try {
            for (int n; (n = in.read(buffer)) >= 0; ) {
                received.write(buffer, 0, n);
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the server kept a connection open for 30 s after: "
                    + new String(received.toByteArray(), StandardCharsets.ISO_8859_1), e);
        } catch (SocketException reset) {
            // A reset is a close too.
        }
        return true;
    }

    /** Everything the server sent, as Latin-1 text (msgpack strings show as themselves). */
    String received() {
        return new String(received.toByteArray(), StandardCharsets.ISO_8859_1);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
