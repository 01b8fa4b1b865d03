package io.dask4j.comm.tcp;

import io.dask4j.comm.Address;
import io.dask4j.comm.CommClosedException;
import io.dask4j.comm.CommException;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.Frame;
import io.dask4j.comm.LimitedComm;
import io.dask4j.comm.Message;
import io.dask4j.comm.MessageHandler;
import io.dask4j.comm.ProtocolException;
import io.dask4j.comm.RateLimitedLog;
import io.dask4j.comm.ReadBudget;
import io.dask4j.comm.ReadLoopReceiver;
import io.dask4j.comm.Receiving;
import io.dask4j.comm.wire.MessageHeader;
import io.dask4j.comm.wire.WireCodec;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.LoggerFactory;

/**
 * A tcp comm over a blocking {@link SocketChannel}, in the {@link WireCodec} format; a {@code tls://} comm is the
 * same, reading and writing through a {@link TlsStream} instead of the socket itself ({@link StreamChannel}).
 *
 * <p><b>Writing.</b> Large frames go out from their own memory, small ones coalesced with the header (see
 * {@link TcpWriter}). Writes are synchronous: when {@link #write} returns the bytes are in the kernel and the
 * frames may be reused.
 *
 * <p><b>Stalled writes.</b> A write that gets no byte into the kernel for {@link CommOptions#deadPeerTimeout()}
 * aborts the comm (see {@link WriteStallChecker}): the writer, and any reader, fail with a {@link
 * CommClosedException} saying "no write progress to <i>peer</i> for <i>timeout</i>: peer unresponsive", instead of
 * waiting about 15 minutes for the kernel to give up on a host that froze. A live peer that simply stops reading
 * until the socket buffers are full is treated the same way. Progress is counted per slice of {@link
 * TcpWriter#WRITE_SLICE_BYTES}, so a slow but live link keeps a large frame going as long as it moves a slice
 * within the timeout. A zero timeout turns the check off. Bytes that did get into the kernel are bounded by the
 * same timeout through {@code TCP_USER_TIMEOUT} ({@link TcpUserTimeout}): a comm that sent a request to a host
 * that then froze, and waits for the answer, fails with a {@link CommClosedException} once the request has gone
 * unacknowledged that long.
 *
 * <p><b>Reading.</b> Small messages are read in one system call into a reused buffer and copied out;
 * each frame lands in a fresh, exactly sized array of its kind (see {@link WireCodec#allocateFrame}), so
 * frames of different messages never share memory. Limits are checked before allocating: the message's size
 * against {@link CommOptions#maxMessageBytes()} (64 KiB until the handshake succeeded), then its frames' bytes are
 * reserved from the {@link ReadBudget} the comms of the process share, and given back once the message is read. A
 * message whose bytes stop arriving for {@link io.dask4j.comm.CommLimits#messageStallTimeout()} aborts the comm
 * ({@link ReadProgress}).
 *
 * <p><b>Closing.</b> {@link #close()} sends what was written, then a FIN, and returns; the socket itself
 * closes once the peer has closed its side (see {@link LingeringClose}), so that unread input cannot make
 * the kernel reset the connection and destroy the tail of our last message. A read under way meanwhile
 * drops whatever still arrives and then fails as closed. {@link #abort()} resets at once.
 *
 * <p><b>Threads.</b> One reader and one writer at a time (writers are serialized by a lock anyway);
 * close/abort from any thread; the write-stall check aborts from the {@link TcpTimer}'s thread. Blocking
 * calls suit virtual threads; platform threads get the lowest latency (no poller hand-off).
 */
final class TcpComm implements LimitedComm, WriteStallChecker.Watched {

    static final int IO_BUFFER_BYTES = 64 << 10;
    /** Frames up to this size are coalesced with the header into one write. */
    static final int SMALL_FRAME_BYTES = IO_BUFFER_BYTES / 2;
    /** Native frames are viewed as buffers no bigger than this (ByteBuffers stop at 2 GiB). */
    static final long MAX_SLICE_BYTES = 1L << 30;
    private static final long CLOSE_FLUSH_WAIT_SECONDS = 10;
    /** Messages refused from authenticated peers, for the whole process: ten warnings per ten seconds at most. */
    private static final RateLimitedLog REFUSED = new RateLimitedLog(LoggerFactory.getLogger(TcpComm.class), 10,
            Duration.ofSeconds(10));

    private final SocketChannel channel;
    /** What messages are read from and written to: the socket itself, or TLS over it. */
    private final StreamChannel io;
    private final Address local;
    private final Address peer;
    /** Small until the handshake lifts it (see {@link LimitedComm}); read by the reader only. */
    private volatile long maxMessageBytes;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile String closeReason = "";

    private final ReentrantLock writeLock = new ReentrantLock();
    /** Held by the reader inside {@link #read()}, or by the thread draining input after a close. */
    private final Semaphore reading = new Semaphore(1);
    private volatile ScheduledFuture<?> lingerDeadline;
    private final WireCodec codec = new WireCodec();
    private final WriteProgress writeProgress = new WriteProgress();
    private final TcpWriter writer;
    /** Null when the write-stall check is off. */
    private final WriteStallChecker.Watch stallWatch;
    private final ReadBudget readBudget;
    private final ReadProgress readProgress;
    /** Null when the message-stall check is off. */
    private final WriteStallChecker.Watch readStallWatch;
    /** Set once the handshake succeeded: protocol errors from then on are logged here (before, the listener logs them). */
    private volatile boolean authenticated;

    /** Set once in push mode: woken by a close so that a paused receiver ends at once. */
    private volatile ReadLoopReceiver receiver;

    private final ByteBuffer in = ByteBuffer.allocateDirect(IO_BUFFER_BYTES).order(ByteOrder.BIG_ENDIAN).flip();
    private final MemorySegment inAll = MemorySegment.ofBuffer(in.duplicate().clear());

    TcpComm(SocketChannel channel, Address local, Address peer, CommOptions options) throws IOException {
        this(channel, local, peer, options, options.deadPeerTimeout());
    }

    /** A comm over a socket we connected, reading and writing through {@code io}. */
    TcpComm(SocketChannel channel, StreamChannel io, Address local, Address peer, CommOptions options)
            throws IOException {
        this(channel, io, local, peer, options, options.deadPeerTimeout(), true);
    }

    /**
     * With a write-stall timeout of its own instead of the options' dead-peer timeout: for tests, which need
     * shorter ones than keepalive allows. Zero or negative turns the check off.
     */
    TcpComm(SocketChannel channel, Address local, Address peer, CommOptions options, Duration writeStallTimeout)
            throws IOException {
        this(channel, StreamChannel.plain(channel), local, peer, options, writeStallTimeout, true);
    }

    /**
     * A comm over a socket its {@link TcpListener} accepted: it inherits {@code TCP_USER_TIMEOUT} from the listening
     * socket, so no lookup of its descriptor slows the accept loop.
     */
    static TcpComm accepted(SocketChannel channel, StreamChannel io, Address local, Address peer, CommOptions options)
            throws IOException {
        return new TcpComm(channel, io, local, peer, options, options.deadPeerTimeout(), false);
    }

    private TcpComm(SocketChannel channel, StreamChannel io, Address local, Address peer, CommOptions options,
                    Duration writeStallTimeout, boolean setUserTimeout) throws IOException {
        this.channel = channel;
        this.io = io;
        this.local = local;
        this.peer = peer;
        this.maxMessageBytes = Math.min(options.maxMessageBytes(), HANDSHAKE_MAX_MESSAGE_BYTES);
        this.writer = new TcpWriter(io, writeProgress);
        channel.configureBlocking(true);
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        TcpKeepAlive.apply(channel, options.deadPeerTimeout());
        if (setUserTimeout) {
            TcpUserTimeout.apply(channel, options.deadPeerTimeout());
        }
        this.readBudget = options.limits().readBudget();
        this.readProgress = new ReadProgress(toString(), timeout -> abort("no bytes from " + peer + " for "
                + WriteStallChecker.describe(timeout) + " within a started message: peer unresponsive"));
        Duration messageStall = options.limits().messageStallTimeout();
        boolean checked = !writeStallTimeout.isZero() && !writeStallTimeout.isNegative();
        // Last, once every field the checker reads is set; the checker's set publishes them safely.
        this.stallWatch = checked ? WriteStallChecker.SHARED.watch(this, writeStallTimeout) : null;
        this.readStallWatch = messageStall.isZero() ? null : WriteStallChecker.SHARED.watch(readProgress, messageStall);
    }

    @Override
    public void liftHandshakeLimit(long limit) {
        maxMessageBytes = limit;
        authenticated = true;
    }

    @Override
    public void write(Message message) {
        Objects.requireNonNull(message, "message");
        writeLock.lock();
        try {
            if (closed.get()) {
                throw closedError();
            }
            ByteBuffer header = codec.encodeHeader(message);   // a bad field type fails here, before any I/O
            writeProgress.started();
            try {
                writer.send(header, message.frames());
            } catch (RuntimeException | Error e) {
                // e.g. a frame whose arena was closed: part of the message may be out, the stream is lost
                abort("write failed: " + e);
                throw e;
            } finally {
                writeProgress.finished();
            }
        } catch (IOException e) {
            // Closed under the blocked write (by abort(), or by the write-stall check): the reason says more than
            // the channel's "closed". Either way part of the message may be out, so the stream is lost.
            boolean closedMeanwhile = closed.get();
            abort("write failed: " + e.getMessage());
            throw closedMeanwhile ? closedError(e) : TcpErrors.translate(e, "write to " + peer);
        } finally {
            writeLock.unlock();
        }
    }

    @Override
    public Message read() {
        if (closed.get()) {
            throw closedError();
        }
        if (!reading.tryAcquire()) {
            if (closed.get()) {
                throw closedError();   // a close is draining the input: there is nothing to read
            }
            reading.acquireUninterruptibly();
        }
        try {
            while (true) {
                Message m = readMessage();
                if (!closed.get()) {
                    return m;
                }
                // Closed locally while this read was under way: drop what still arrives until the peer closes too.
            }
        } finally {
            reading.release();
        }
    }

    /**
     * Push mode: one platform thread, blocked in the socket read, decodes each message and calls the handler itself
     * (see {@link ReadLoopReceiver}). The kernel wakes it once per burst of arriving messages, and every message
     * already in the read buffer is handed over without another system call. Pausing stops reading the socket, so
     * the peer's writes wait once the socket buffers are full.
     */
    @Override
    public Receiving receive(MessageHandler handler) {
        ReadLoopReceiver started = ReadLoopReceiver.start(this, handler, Thread.ofPlatform().daemon());
        receiver = started;
        return started;
    }

    private Message readMessage() {
        try {
            if (in.hasRemaining()) {
                readProgress.bytesArrived();   // the message starts with bytes already buffered
            }
            fill(WireCodec.PRELUDE_BYTES, true);
            int headerBytes = WireCodec.readPrelude(in, maxMessageBytes);
            MessageHeader header = readHeader(headerBytes);
            return readFrames(header);
        } catch (ProtocolException e) {
            if (authenticated) {
                REFUSED.warn("refused a message from {} on {}: {}", peer, local, e.getMessage());
            }
            throw failedRead("protocol error: " + e.getMessage(), new ProtocolException("from " + peer + ": " + e.getMessage(), e));
        } catch (CommException e) {
            throw failedRead(e.getMessage(), e);
        } catch (IOException e) {
            throw failedRead("read failed: " + e.getMessage(), TcpErrors.translate(e, "read from " + peer));
        } catch (RuntimeException | Error e) {
            // e.g. out of memory for a frame: the rest of the message is still on the wire, so give up the comm
            abort("read failed: " + e);
            throw e;
        } finally {
            readProgress.paused();
        }
    }

    /**
     * Allocates and reads the frames {@code header} announces, against the {@link ReadBudget}: reserved before
     * anything is allocated (waiting, untimed, while other messages hold it), released once the message is read or
     * failed.
     */
    private Message readFrames(MessageHeader header) throws IOException {
        long frameBytes = header.frameBytes();
        readProgress.paused();
        readBudget.reserve(frameBytes, peer);
        try {
            List<Frame> frames = new ArrayList<>(header.frameCount());
            for (int i = 0; i < header.frameCount(); i++) {
                MemorySegment frame = WireCodec.allocateFrame(header.frameKinds()[i], header.frameLengths()[i]);
                readInto(frame);
                frames.add(new Frame(frame));
            }
            return header.toMessage(frames);
        } finally {
            readBudget.release(frameBytes);
        }
    }

    /** Ends the comm after a failed read: the error to throw, or after a local close (the linger is over) a closed one. */
    private RuntimeException failedRead(String reason, RuntimeException error) {
        if (closed.get()) {
            closeChannel();   // most often the peer's end of stream answering our FIN: the close is complete
            return closedError();
        }
        abort(reason);
        return error;
    }

    private MessageHeader readHeader(int headerBytes) throws IOException {
        if (headerBytes <= in.capacity()) {
            fill(headerBytes, false);
            MessageHeader header = WireCodec.decodeHeader(in.slice(in.position(), headerBytes), maxMessageBytes);
            in.position(in.position() + headerBytes);
            return header;
        }
        ByteBuffer big = ByteBuffer.allocate(headerBytes);
        readInto(MemorySegment.ofBuffer(big));
        return WireCodec.decodeHeader(big, maxMessageBytes);
    }

    /** Makes at least {@code n} bytes available in {@code in} (read mode), reading as much as is there. */
    private void fill(int n, boolean atMessageStart) throws IOException {
        if (in.remaining() >= n) {
            return;
        }
        in.compact();
        try {
            while (in.position() < n) {
                if (io.read(in) < 0) {
                    throw eof(atMessageStart && in.position() == 0);
                }
                readProgress.bytesArrived();
            }
        } finally {
            in.flip();
        }
    }

    private void readInto(MemorySegment target) throws IOException {
        long size = target.byteSize();
        long offset = Math.min(in.remaining(), size);
        MemorySegment.copy(inAll, in.position(), target, 0, offset);
        in.position(in.position() + (int) offset);
        long left = size - offset;
        if (left == 0) {
            return;
        }
        if (left <= SMALL_FRAME_BYTES) {
            fill((int) left, false);
            MemorySegment.copy(inAll, in.position(), target, offset, left);
            in.position(in.position() + (int) left);
        } else if (target.isNative()) {
            for (; offset < size; offset += MAX_SLICE_BYTES) {
                readFully(target.asSlice(offset, Math.min(MAX_SLICE_BYTES, size - offset)).asByteBuffer());
            }
        } else {
            readThroughStaging(target, offset);
        }
    }

    private void readThroughStaging(MemorySegment target, long offset) throws IOException {
        ByteBuffer staging = StagingBuffers.take();
        try {
            MemorySegment stagingAll = MemorySegment.ofBuffer(staging);
            while (offset < target.byteSize()) {
                int n = (int) Math.min(staging.capacity(), target.byteSize() - offset);
                staging.clear().limit(n);
                readFully(staging);
                MemorySegment.copy(stagingAll, 0, target, offset, n);
                offset += n;
            }
        } finally {
            StagingBuffers.give(staging);
        }
    }

    private void readFully(ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            if (io.read(buffer) < 0) {
                throw eof(false);
            }
            readProgress.bytesArrived();
        }
    }

    private CommClosedException eof(boolean cleanly) {
        return new CommClosedException(cleanly ? "connection closed by peer " + peer
                : "connection closed by peer " + peer + " in the middle of a message");
    }

    @Override
    public void close() {
        if (closed.get()) {
            return;
        }
        boolean locked = false;
        try {
            // Writes are synchronous: once we hold the lock, everything written is in the kernel.
            locked = writeLock.tryLock(CLOSE_FLUSH_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            if (closed.compareAndSet(false, true)) {
                closeReason = "closed locally";
                wakeReceiver();
                lingerDeadline = LingeringClose.deadline(this::closeChannel);
                try {
                    io.shutdownOutput();   // FIN after the data, so the peer reads all of it first
                } catch (IOException alreadyBroken) {
                    closeChannel();
                    return;
                }
                if (reading.tryAcquire()) {   // else the reader under way drains (see read())
                    LingeringClose.inBackground(() -> {
                        try {
                            LingeringClose.drain(channel, in);
                        } finally {
                            reading.release();
                            closeChannel();
                        }
                    });
                }
            }
        } finally {
            if (locked) {
                writeLock.unlock();
            }
        }
    }

    @Override
    public void abort() {
        abort("aborted locally");
    }

    @Override
    public WriteProgress writeProgress() {
        return writeProgress;
    }

    /** From the write-stall check: the reset unblocks the writer, and any reader, with the reason given here. */
    @Override
    public void onWriteStalled(Duration timeout) {
        abort("no write progress to " + peer + " for " + WriteStallChecker.describe(timeout) + ": peer unresponsive");
    }

    private void abort(String reason) {
        if (closed.compareAndSet(false, true)) {
            closeReason = reason;
        }
        if (channel.isOpen()) {   // also cuts short the linger of a close
            try {
                channel.setOption(StandardSocketOptions.SO_LINGER, 0);   // reset, drop unsent data
            } catch (IOException | RuntimeException ignored) {
                // The channel is closed already.
            }
            closeChannel();
        }
    }

    private void closeChannel() {
        wakeReceiver();
        ScheduledFuture<?> deadline = lingerDeadline;
        if (deadline != null) {
            deadline.cancel(false);
        }
        if (stallWatch != null) {
            WriteStallChecker.SHARED.unwatch(stallWatch);
        }
        if (readStallWatch != null) {
            WriteStallChecker.SHARED.unwatch(readStallWatch);
        }
        try {
            channel.close();
        } catch (IOException ignored) {
            // Nothing more can be done about a socket that fails to close.
        }
    }

    private void wakeReceiver() {
        ReadLoopReceiver r = receiver;
        if (r != null) {
            r.wake();
        }
    }

    private CommClosedException closedError() {
        return closedError(null);
    }

    private CommClosedException closedError(Throwable cause) {
        return new CommClosedException(local.scheme() + " comm " + local + " -> " + peer + " is closed (" + closeReason + ")", cause);
    }

    @Override
    public boolean isClosed() {
        return closed.get();
    }

    @Override
    public Address localAddress() {
        return local;
    }

    /** The socket, for tests of its options. */
    SocketChannel channel() {
        return channel;
    }

    @Override
    public Address peerAddress() {
        return peer;
    }

    @Override
    public String toString() {
        return "TcpComm[" + local + " -> " + peer + "]";
    }
}
