package io.dask4j.mpi.comm;

import io.dask4j.comm.Address;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommClosedException;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.FatalCommClosedException;
import io.dask4j.comm.Frame;
import io.dask4j.comm.Listener;
import io.dask4j.comm.Message;
import io.dask4j.comm.ProtocolException;
import io.dask4j.comm.wire.MessageHeader;
import io.dask4j.comm.wire.WireCodec;
import io.dask4j.mpi.engine.BufferPool;
import io.dask4j.mpi.engine.InboundRouter;
import io.dask4j.mpi.engine.ProgressEngine;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The mpi backend's connections over one communicator (a dup of MPI_COMM_WORLD): the registry of comms
 * and listeners of this rank, and the router of everything the progress engine receives.
 *
 * <p><b>Scheme.</b> Each comm has a process-local id; a connection is the pair (rank A, id a) <-> (rank B,
 * id b). Every message of the backend starts with an envelope (MPI tag {@value #TAG_ENVELOPE}, see {@link
 * Envelope}) naming the receiver's comm id and the sender's; a DATA envelope carries the message header
 * (op, fields, frame lengths and kinds, in {@link WireCodec}'s format) and is followed by each non-empty
 * frame as its own MPI messages (tag {@value #TAG_FRAME}, chunks of at most 1 GiB), sent from and received
 * into the frames' memory. Frames need no ids: the engine posts an envelope and its frames together, and
 * MPI keeps messages from one source in order, so the next frame messages from a source belong to the
 * last DATA envelope from it. Connecting sends CONNECT (to the listener port) and waits for ACCEPT (with
 * the acceptor's id) or REJECT (nothing listens); CLOSE is sent after the data it follows, ABORT at once.
 * Messages for an unknown comm (closed, timed out) are received and dropped, frames included.
 *
 * <p><b>Threads.</b> {@link #connect}, {@link #listener} and the comms' methods from any thread; {@link
 * InboundRouter} methods on the thread driving the engine.
 */
public final class MpiTransport implements InboundRouter {

    static final int TAG_ENVELOPE = 1;
    static final int TAG_FRAME = 2;
    static final long CHUNK_BYTES = 1L << 30;
    /** Native frames larger than this are sent from their own memory (the writer waits); smaller are copied. */
    static final long ZERO_COPY_BYTES = 64 << 10;
    /**
     * Frames up to this size are received straight into a Java array of their kind (blocking MPI_Mrecv
     * with the GC held off), so the reader gets a {@code byte[]}/{@code double[]}/{@code long[]} with no
     * copy, and memory is recycled by the GC like any array; larger frames go to pooled native memory.
     */
    static final long HEAP_FRAME_BYTES = Long.getLong("dask4j.mpi.heapFrameBytes", 256L << 20);

    /**
     * Native (over {@link #HEAP_FRAME_BYTES}) frames are received with MPI_Imrecv, so that other comms keep
     * moving meanwhile; {@code -Ddask4j.mpi.blockingReceives=true} receives them with a blocking MPI_Mrecv
     * once matched instead (the sender is already sending).
     */
    static final boolean BLOCKING_RECEIVES = Boolean.getBoolean("dask4j.mpi.blockingReceives");

    private final int rank;
    private final int size;
    private final BufferPool pool = new BufferPool(512L << 20, 1L << 30);
    private final ConcurrentHashMap<Integer, MpiComm> comms = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Integer, MpiListener> listeners = new ConcurrentHashMap<>();
    private final AtomicInteger nextId = new AtomicInteger(1);
    private final FrameCursor[] cursors;
    private final ThreadLocal<WireCodec> codecs = ThreadLocal.withInitial(WireCodec::new);
    private volatile ProgressEngine engine;
    private volatile RuntimeException failure;
    private int eagerBytes;

    public MpiTransport(int rank, int size) {
        this.rank = rank;
        this.size = size;
        this.cursors = new FrameCursor[size];
    }

    /** Connects the transport to the engine that feeds it; once, before any comm is made. */
    public void attach(ProgressEngine progress) {
        this.engine = progress;
        this.eagerBytes = progress.options().eagerBytes();
    }

    ProgressEngine engine() {
        return engine;
    }

    public int rank() {
        return rank;
    }

    public int size() {
        return size;
    }

    /** One raw connect attempt (see {@link io.dask4j.comm.Connector}). */
    public Comm connect(Address address, Duration timeout, CommOptions options) {
        int[] target = parse(address);
        RuntimeException broken = failure;
        if (broken != null) {
            throw new FatalCommClosedException("MPI transport failed: " + broken.getMessage(), broken);
        }
        int id = nextId.getAndIncrement();
        MpiComm comm = new MpiComm(this, id, target[0], 0, MpiComm.CONNECTING, options, Address.mpi(rank), address);
        comms.put(id, comm);
        engine.submit(control(null, target[0], Envelope.CONNECT, target[1], id));
        if (comm.awaitAccepted(Math.max(1, timeout.toNanos()))) {
            return comm;
        }
        comms.remove(id, comm);
        if (comm.state() == MpiComm.REJECTED) {
            throw new CommClosedException("connection refused: nothing listens on " + address);
        }
        throw new CommClosedException("no answer from " + address + " within " + timeout);
    }

    /** A listener on one of this rank's addresses, {@code mpi://<rank>[:<port>]}; not started. */
    public Listener listener(Address address, CommOptions options, Consumer<Comm> onAccept) {
        int[] target = parse(address);
        if (target[0] != rank) {
            throw new FatalCommClosedException("cannot listen on " + address + ": this process is rank " + rank
                    + " (listen on mpi://" + rank + ")");
        }
        return new MpiListener(this, address, target[1], options, onAccept);
    }

    /** Aborts every comm (engine stopping or failed). Any thread. */
    public void shutdown(String reason) {
        for (MpiComm comm : comms.values()) {
            comm.onPeerAborted(reason);
        }
        listeners.clear();
    }

    void bind(int port, MpiListener listener) {
        if (listeners.putIfAbsent(port, listener) != null) {
            throw new CommClosedException("address in use: " + listener.listenAddress() + " already has a listener");
        }
    }

    void unbind(int port, MpiListener listener) {
        listeners.remove(port, listener);
    }

    void forget(MpiComm comm) {
        comms.remove(comm.id(), comm);
    }

    /** {@code mpi://rank} or {@code mpi://rank:port} to {rank, port}. */
    private int[] parse(Address address) {
        if (!address.scheme().equals("mpi")) {
            throw new FatalCommClosedException("not an mpi address: " + address);
        }
        String location = address.location();
        int colon = location.indexOf(':');
        int target;
        int port;
        try {
            target = Integer.parseInt(colon < 0 ? location : location.substring(0, colon));
            port = colon < 0 ? 0 : Integer.parseInt(location.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new FatalCommClosedException("bad mpi address " + address + ": expected mpi://<rank>[:<port>]");
        }
        if (target < 0 || target >= size) {
            throw new FatalCommClosedException("no rank " + target + " in this MPI job of " + size + " ranks: " + address);
        }
        return new int[] {target, port};
    }

    // ---- sending ----

    record Prepared(OutgoingMessage message, boolean zeroCopy) {
    }

    /**
     * Encodes a DATA message of {@code comm}: envelope + header in a pooled buffer, with the frames inline
     * when the whole message fits one eager MPI message, else frames as their own MPI messages (copied to
     * pooled native memory when on-heap or small, sent from their own memory otherwise).
     */
    Prepared prepare(MpiComm comm, Message message) {
        ByteBuffer header = codecs.get().encodeHeader(message);
        long headed = Envelope.BYTES + header.limit();
        long total = headed + message.frameBytes();
        boolean inline = total <= eagerBytes;
        List<MemorySegment> pooled = new ArrayList<>(2);
        MemorySegment envelopeBuffer = pool.acquire(inline ? total : headed);
        pooled.add(envelopeBuffer);
        MemorySegment envelope = envelopeBuffer.asSlice(0, inline ? total : headed);
        Envelope.write(envelope, Envelope.DATA, inline ? Envelope.FLAG_INLINE : 0, comm.peerId(), comm.id());
        MemorySegment.copy(MemorySegment.ofBuffer(header), 0, envelope, Envelope.BYTES, header.limit());
        if (inline) {
            long offset = headed;
            for (Frame frame : message.frames()) {
                MemorySegment.copy(frame.segment(), 0, envelope, offset, frame.size());
                offset += frame.size();
            }
            return new Prepared(new OutgoingMessage(comm, comm.peerRank(), envelope, List.of(), pooled, pool), false);
        }
        List<MemorySegment> chunks = new ArrayList<>(message.frames().size());
        boolean zeroCopy = false;
        for (Frame frame : message.frames()) {
            MemorySegment data = frame.segment();
            long length = data.byteSize();
            if (length == 0) {
                continue;
            }
            if (!data.isNative() || length <= ZERO_COPY_BYTES) {
                MemorySegment copy = pool.acquire(length);
                pooled.add(copy);
                MemorySegment.copy(data, 0, copy, 0, length);
                data = copy.asSlice(0, length);
            } else {
                // The writer waits until MPI is done, so the memory outlives the send; a global-scope alias
                // lets the engine thread pass memory of a confined arena to MPI.
                data = MemorySegment.ofAddress(data.address()).reinterpret(length);
                zeroCopy = true;
            }
            for (long offset = 0; offset < length; offset += CHUNK_BYTES) {
                chunks.add(data.asSlice(offset, Math.min(CHUNK_BYTES, length - offset)));
            }
        }
        return new Prepared(new OutgoingMessage(comm, comm.peerRank(), envelope, chunks, pooled, pool), zeroCopy);
    }

    /** A control envelope (no header, no frames) from {@code comm} (may be null) to {@code dest}. */
    OutgoingMessage control(MpiComm comm, int dest, byte kind, int dst, int src) {
        MemorySegment buffer = pool.acquire(Envelope.BYTES);
        MemorySegment envelope = buffer.asSlice(0, Envelope.BYTES);
        Envelope.write(envelope, kind, dst, src);
        return new OutgoingMessage(comm, dest, envelope, List.of(), List.of(buffer), pool);
    }

    // ---- receiving (engine thread) ----

    @Override
    public void onEager(int source, int tag, MemorySegment data) {
        if (tag == TAG_ENVELOPE) {
            onEnvelope(source, data);
        } else if (tag == TAG_FRAME) {
            FrameCursor cursor = cursors[source];
            MemorySegment target = cursor == null ? null : cursor.next(data.byteSize());
            if (target != null) {
                MemorySegment.copy(data, 0, target, 0, data.byteSize());
            }
            finishChunk(source, cursor, false);
        }
    }

    @Override
    public Target onLarge(int source, int tag, long bytes) {
        if (tag == TAG_ENVELOPE) {
            MemorySegment buffer = pool.acquire(bytes);
            MemorySegment view = buffer.asSlice(0, bytes);
            return new Target(view, rc -> {
                onEnvelope(source, view);
                pool.release(buffer);
            }, true);
        }
        if (tag != TAG_FRAME) {
            return null;
        }
        FrameCursor cursor = cursors[source];
        MemorySegment target = cursor == null ? null : cursor.next(bytes);
        if (target == null) {
            finishChunk(source, cursor, false);
            return null;
        }
        IncomingMessage message = cursor.message;
        MpiComm comm = cursor.comm;
        finishChunk(source, cursor, true);
        return new Target(target, rc -> {
            if (message.receiveDone()) {
                comm.onMessageComplete();
            }
        }, BLOCKING_RECEIVES || !target.isNative());
    }

    private void finishChunk(int source, FrameCursor cursor, boolean posted) {
        if (cursor == null) {
            return;
        }
        if (posted) {
            cursor.message.receivePosted();
        }
        if (cursor.corrupt && cursor.comm != null) {
            cursor.comm.onPeerAborted("protocol error from " + cursor.comm.peerAddress() + ": frame of unexpected size");
        }
        if (cursor.done()) {
            cursors[source] = null;
            if (cursor.message != null && cursor.message.matchedAll()) {
                cursor.comm.onMessageComplete();
            }
        }
    }

    @Override
    public void onEngineFailure(RuntimeException cause) {
        failure = cause;
        shutdown("MPI progress engine failed: " + cause.getMessage());
    }

    private void onEnvelope(int source, MemorySegment data) {
        byte kind;
        try {
            kind = Envelope.kind(data);
        } catch (ProtocolException e) {
            return;
        }
        int dst = Envelope.dst(data);
        int src = Envelope.src(data);
        MpiComm comm = kind == Envelope.CONNECT ? null : comms.get(dst);
        if (comm != null && comm.peerRank() != source) {
            comm = null;
        }
        switch (kind) {
            case Envelope.CONNECT -> onConnect(source, dst, src);
            case Envelope.ACCEPT -> {
                if (comm != null && comm.state() == MpiComm.CONNECTING) {
                    comm.onAccepted(src);
                } else {
                    engine.submit(control(null, source, Envelope.ABORT, src, dst));
                }
            }
            case Envelope.REJECT -> {
                if (comm != null) {
                    comm.onRejected();
                }
            }
            case Envelope.DATA -> onData(source, comm != null && comm.peerId() == src ? comm : null, data);
            case Envelope.CLOSE -> {
                if (comm != null) {
                    comm.onPeerClosed();
                }
            }
            case Envelope.ABORT -> {
                if (comm != null) {
                    comm.onPeerAborted("peer " + comm.peerAddress() + " aborted the comm");
                }
            }
            default -> { }
        }
    }

    private void onConnect(int source, int port, int clientId) {
        MpiListener listener = listeners.get(port);
        if (listener == null) {
            engine.submit(control(null, source, Envelope.REJECT, clientId, 0));
            return;
        }
        int id = nextId.getAndIncrement();
        MpiComm comm = new MpiComm(this, id, source, clientId, MpiComm.OPEN, listener.options(), listener.listenAddress(),
                Address.mpi(source));
        comms.put(id, comm);
        engine.submit(control(null, source, Envelope.ACCEPT, clientId, id));
        listener.accepted(comm);
    }

    private void onData(int source, MpiComm comm, MemorySegment data) {
        long limit = comm == null ? Long.MAX_VALUE : comm.options().maxMessageBytes();
        MessageHeader header;
        boolean inline = Envelope.inline(data);
        long inlineOffset;
        try {
            ByteBuffer in = data.asSlice(Envelope.BYTES).asByteBuffer();
            int headerBytes = WireCodec.readPrelude(in, limit);
            if (headerBytes > in.remaining()) {
                throw new ProtocolException("truncated header in an mpi envelope");
            }
            header = WireCodec.decodeHeader(in.slice(in.position(), headerBytes), limit);
            inlineOffset = Envelope.BYTES + WireCodec.PRELUDE_BYTES + headerBytes;
            if (inline && inlineOffset + header.frameBytes() != data.byteSize()) {
                throw new ProtocolException("inline frames of '" + header.op() + "' do not fill the envelope");
            }
        } catch (ProtocolException e) {
            if (comm != null) {
                comm.onPeerAborted("protocol error from " + comm.peerAddress() + ": " + e.getMessage());
            }
            return;
        }
        boolean accepting = comm != null && (comm.state() == MpiComm.OPEN);
        if (inline) {
            if (accepting) {
                comm.enqueue(inlineMessage(header, data, inlineOffset));
            }
            return;
        }
        MemorySegment[] frames = new MemorySegment[header.frameCount()];
        MemorySegment[] targets = new MemorySegment[header.frameCount()];
        for (int i = 0; i < frames.length; i++) {
            long length = header.frameLengths()[i];
            if (!accepting) {
                continue;
            }
            if (length <= HEAP_FRAME_BYTES) {
                frames[i] = WireCodec.allocateFrame(header.frameKinds()[i], length);
                targets[i] = frames[i];
            } else {
                MemorySegment buffer = pool.acquire(length);
                targets[i] = buffer.asSlice(0, length);
                frames[i] = pool.recyclingView(buffer, length);
            }
        }
        IncomingMessage message = accepting ? new IncomingMessage(header, frames) : null;
        FrameCursor cursor = new FrameCursor(comm, message, header.frameLengths(), targets);
        if (cursor.done()) {
            if (message != null) {
                message.matchedAll();
            }
        } else {
            cursors[source] = cursor;
        }
        if (message != null) {
            comm.enqueue(message);
        }
    }

    private static IncomingMessage inlineMessage(MessageHeader header, MemorySegment data, long offset) {
        MemorySegment[] frames = new MemorySegment[header.frameCount()];
        for (int i = 0; i < frames.length; i++) {
            long length = header.frameLengths()[i];
            frames[i] = WireCodec.allocateFrame(header.frameKinds()[i], length);
            MemorySegment.copy(data, offset, frames[i], 0, length);
            offset += length;
        }
        IncomingMessage message = new IncomingMessage(header, frames);
        message.matchedAll();
        return message;
    }
}
