package io.dask4j.comm.tcp;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.locks.ReentrantLock;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLException;

/**
 * TLS records over a blocking {@link SocketChannel}, with the JDK's {@link SSLEngine}: the {@code tls://} stream
 * of a {@link TcpComm}, which frames, budgets, times and closes its messages exactly as over {@code tcp://}.
 *
 * <p><b>Handshake.</b> The TLS handshake runs on the first read or write, so on the thread of the comm layer's own
 * handshake (never on a listener's accept thread), and under its timeout and its cap on connections handshaking at
 * once: a peer that opens a connection and says nothing, or speaks plaintext, costs what it costs on tcp. A failed
 * TLS handshake tries to tell the peer why (the engine's alert) and raises the engine's {@link SSLException}, which
 * {@link TcpErrors} turns into a {@link io.dask4j.comm.TlsException} naming the cause.
 *
 * <p><b>Data.</b> Reads unwrap straight into the caller's buffer when it can take a whole record (large frames), else
 * through a record-sized buffer. Writes wrap up to {@link #RECORDS_PER_WRITE} records and hand them to the kernel in
 * one call. A record that asks for an answer after the handshake (a TLS 1.3 key update) is answered by the reader,
 * under the write lock.
 *
 * <p><b>Threads.</b> One reader and one writer at a time, blocking; {@link #shutdownOutput()} from any thread.
 */
final class TlsStream implements StreamChannel {
    /** Records wrapped before the bytes go to the kernel: about 64 KiB per system call, as the plain writer's buffer. */
    static final int RECORDS_PER_WRITE = 4;
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    private final SocketChannel channel;
    private final SSLEngine engine;
    private final ReentrantLock handshakeLock = new ReentrantLock();
    /** Guards {@link #netOut} and every wrap. */
    private final ReentrantLock writeLock = new ReentrantLock();
    private volatile boolean handshaken;
    /** Ciphertext read but not yet unwrapped (read mode); the reader's, or the handshake's. */
    private ByteBuffer netIn;
    /** Plaintext unwrapped but not yet read (read mode); the reader's, or the handshake's. */
    private ByteBuffer appIn;
    private boolean inboundClosed;
    private final ByteBuffer netOut;

    TlsStream(SocketChannel channel, SSLEngine engine) {
        this.channel = channel;
        this.engine = engine;
        int packet = engine.getSession().getPacketBufferSize();
        this.netIn = ByteBuffer.allocateDirect(packet).flip();
        this.appIn = ByteBuffer.allocateDirect(engine.getSession().getApplicationBufferSize()).flip();
        this.netOut = ByteBuffer.allocateDirect(packet * RECORDS_PER_WRITE);
    }

    @Override
    public int read(ByteBuffer target) throws IOException {
        ensureHandshake();
        while (true) {
            if (appIn.hasRemaining()) {
                return drainAppIn(target);
            }
            if (inboundClosed) {
                return -1;
            }
            boolean direct = target.remaining() >= appIn.capacity();
            SSLEngineResult result = direct ? engine.unwrap(netIn, target) : unwrapIntoAppIn();
            answer(result.getHandshakeStatus());
            switch (result.getStatus()) {
                case OK -> {
                    if (direct && result.bytesProduced() > 0) {
                        return result.bytesProduced();
                    }
                    // Plaintext went to appIn, or the record carried none (a session ticket): go round.
                }
                case BUFFER_UNDERFLOW -> {
                    if (readNet() < 0) {
                        return -1;
                    }
                }
                case BUFFER_OVERFLOW -> growAppIn();
                case CLOSED -> inboundClosed = true;   // the peer's close_notify: the end of its stream
            }
        }
    }

    @Override
    public long write(ByteBuffer[] sources) throws IOException {
        ensureHandshake();
        writeLock.lock();
        try {
            long consumed = 0;
            netOut.clear();
            while (netOut.remaining() >= engine.getSession().getPacketBufferSize() && anyRemaining(sources)) {
                SSLEngineResult result = engine.wrap(sources, netOut);
                if (result.getStatus() == SSLEngineResult.Status.CLOSED) {
                    throw new SSLException("the TLS session is closed for writing");
                }
                runTasks(result.getHandshakeStatus());
                consumed += result.bytesConsumed();
                if (result.getStatus() == SSLEngineResult.Status.BUFFER_OVERFLOW) {
                    break;
                }
            }
            netOut.flip();
            try {
                flushNetOut();
            } catch (IOException e) {
                throw alertOr(e);
            }
            return consumed;
        } finally {
            writeLock.unlock();
        }
    }

    /**
     * Why a write failed: a peer that refused the handshake (TLS 1.3 ends the client's part before the listener has
     * checked its certificate) sent an alert and reset the connection, so the reset reaches the next write while the
     * alert, which says why, waits unread. Reads it if it is there (a failed socket does not block) and returns it.
     */
    private IOException alertOr(IOException writeFailure) {
        try {
            netIn.compact();
            try {
                channel.read(netIn);
            } finally {
                netIn.flip();
            }
            unwrapIntoAppIn();
        } catch (SSLException alert) {
            alert.addSuppressed(writeFailure);
            return alert;
        } catch (IOException | RuntimeException nothingMore) {
            // No alert waiting: the write's own error says it.
        }
        return writeFailure;
    }

    @Override
    public int write(ByteBuffer source) throws IOException {
        return (int) write(new ByteBuffer[] {source});
    }

    /** Sends close_notify (if the session got that far), then the FIN; a peer reads the end of our stream either way. */
    @Override
    public void shutdownOutput() throws IOException {
        writeLock.lock();
        try {
            engine.closeOutbound();
            if (handshaken) {
                netOut.clear();
                while (!engine.isOutboundDone()) {
                    if (engine.wrap(EMPTY, netOut).bytesProduced() == 0) {
                        break;
                    }
                }
                netOut.flip();
                flushNetOut();
            }
        } finally {
            writeLock.unlock();
        }
        channel.shutdownOutput();
    }

    private void ensureHandshake() throws IOException {
        if (handshaken) {
            return;
        }
        handshakeLock.lock();
        try {
            if (!handshaken) {
                handshake();
                handshaken = true;
            }
        } finally {
            handshakeLock.unlock();
        }
    }

    private void handshake() throws IOException {
        try {
            engine.beginHandshake();
            HandshakeStatus status = engine.getHandshakeStatus();
            while (status != HandshakeStatus.FINISHED && status != HandshakeStatus.NOT_HANDSHAKING) {
                status = switch (status) {
                    case NEED_WRAP -> wrapHandshake();
                    case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> unwrapHandshake();
                    case NEED_TASK -> runTasks(status);
                    default -> status;
                };
            }
        } catch (SSLException e) {
            sendAlertQuietly();
            throw e;
        }
    }

    private HandshakeStatus wrapHandshake() throws IOException {
        writeLock.lock();
        try {
            netOut.clear();
            SSLEngineResult result = engine.wrap(EMPTY, netOut);
            netOut.flip();
            flushNetOut();
            if (result.getStatus() == SSLEngineResult.Status.CLOSED) {
                throw new EOFException("the TLS session closed during its handshake");
            }
            return result.getHandshakeStatus();
        } finally {
            writeLock.unlock();
        }
    }

    private HandshakeStatus unwrapHandshake() throws IOException {
        while (true) {
            SSLEngineResult result = unwrapIntoAppIn();
            switch (result.getStatus()) {
                case OK -> {
                    return result.getHandshakeStatus();
                }
                case BUFFER_UNDERFLOW -> {
                    if (readNet() < 0) {
                        throw new EOFException("the peer closed the connection during the TLS handshake");
                    }
                }
                case BUFFER_OVERFLOW -> growAppIn();
                case CLOSED -> throw new EOFException("the peer closed the TLS session during its handshake");
            }
        }
    }

    /** After the handshake: runs the engine's tasks, and answers a record that asks for one (a key update). */
    private void answer(HandshakeStatus status) throws IOException {
        status = runTasks(status);
        if (status != HandshakeStatus.NEED_WRAP) {
            return;
        }
        writeLock.lock();
        try {
            while (status == HandshakeStatus.NEED_WRAP) {
                netOut.clear();
                SSLEngineResult result = engine.wrap(EMPTY, netOut);
                netOut.flip();
                flushNetOut();
                status = runTasks(result.getHandshakeStatus());
                if (result.bytesProduced() == 0) {
                    break;
                }
            }
        } finally {
            writeLock.unlock();
        }
    }

    private HandshakeStatus runTasks(HandshakeStatus status) {
        if (status != HandshakeStatus.NEED_TASK) {
            return status;
        }
        Runnable task;
        while ((task = engine.getDelegatedTask()) != null) {
            task.run();
        }
        return engine.getHandshakeStatus();
    }

    private SSLEngineResult unwrapIntoAppIn() throws SSLException {
        appIn.compact();
        try {
            return engine.unwrap(netIn, appIn);
        } finally {
            appIn.flip();
        }
    }

    private int drainAppIn(ByteBuffer target) {
        int n = Math.min(appIn.remaining(), target.remaining());
        ByteBuffer slice = appIn.slice(appIn.position(), n);
        target.put(slice);
        appIn.position(appIn.position() + n);
        return n;
    }

    /** Reads more ciphertext; the buffer grows if one record does not fit (the session's packet size grew). */
    private int readNet() throws IOException {
        netIn.compact();
        try {
            if (!netIn.hasRemaining()) {
                netIn = grow(netIn.flip(), engine.getSession().getPacketBufferSize()).compact();
            }
            return channel.read(netIn);
        } finally {
            netIn.flip();
        }
    }

    private void growAppIn() {
        appIn = grow(appIn, engine.getSession().getApplicationBufferSize());
    }

    /** A larger copy of {@code buffer} (read mode in, read mode out). */
    private static ByteBuffer grow(ByteBuffer buffer, int atLeastMore) {
        ByteBuffer bigger = ByteBuffer.allocateDirect(buffer.capacity() + Math.max(atLeastMore, 1024));
        bigger.put(buffer);
        return bigger.flip();
    }

    private void flushNetOut() throws IOException {
        while (netOut.hasRemaining()) {
            channel.write(netOut);
        }
    }

    /** The engine's alert after a failed handshake, so the peer learns why; best effort. */
    private void sendAlertQuietly() {
        writeLock.lock();
        try {
            netOut.clear();
            engine.wrap(EMPTY, netOut);
            netOut.flip();
            flushNetOut();
        } catch (IOException | RuntimeException ignored) {
            // The handshake failed already; that is what the caller reports.
        } finally {
            writeLock.unlock();
        }
    }

    private static boolean anyRemaining(ByteBuffer[] buffers) {
        for (ByteBuffer b : buffers) {
            if (b != null && b.hasRemaining()) {
                return true;
            }
        }
        return false;
    }
}
