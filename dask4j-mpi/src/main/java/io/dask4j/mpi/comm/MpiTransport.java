package io.dask4j.mpi.comm;

import io.dask4j.comm.Address;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommClosedException;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.FatalCommClosedException;
import io.dask4j.comm.Listener;
import io.dask4j.comm.Message;
import io.dask4j.comm.wire.WireCodec;
import io.dask4j.mpi.engine.BufferPool;
import io.dask4j.mpi.engine.InboundRouter;
import io.dask4j.mpi.engine.ProgressEngine;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The mpi backend's connections over one communicator (a dup of MPI_COMM_WORLD): the registry of comms
 * and listeners of this rank; what it sends is encoded by a {@link MessageEncoder}, what the progress engine
 * receives is routed by an {@link InboundDemux}.
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
 * Each comm's reader grants its writer credit in messages and bytes with CREDIT envelopes on a tag of their own
 * ({@value #TAG_CREDIT}; see {@link CreditWindow}), so a slow reader stops only its own comm's writers. Messages for an unknown comm (closed, timed out) are received and dropped, frames
 * included.
 *
 * <p><b>Threads.</b> {@link #connect}, {@link #listener} and the comms' methods from any thread; {@link
 * InboundRouter} methods on the thread driving the engine.
 */
public final class MpiTransport implements InboundRouter {

    static final int TAG_ENVELOPE = 1;
    static final int TAG_FRAME = 2;
    /** Credits ({@link Envelope#CREDIT}): commutative, so they may overtake envelopes and frames. */
    static final int TAG_CREDIT = 3;

    private final int rank;
    private final int size;
    private final MpiTransportOptions options;
    private final BufferPool pool;
    private final ConcurrentHashMap<Integer, MpiComm> comms = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Integer, MpiListener> listeners = new ConcurrentHashMap<>();
    private final AtomicInteger nextId = new AtomicInteger(1);
    /** Push-mode comms with something to deliver (see {@link #deliver}). */
    private final ConcurrentLinkedQueue<MpiComm> ready = new ConcurrentLinkedQueue<>();
    private final ReentrantLock delivering = new ReentrantLock();
    private final InboundDemux demux;
    /** Per peer rank, shared by every comm to it (see {@link PeerSendOrder}). */
    private final PeerSendOrder[] sendOrders;
    private volatile MessageEncoder encoder;
    private volatile ProgressEngine engine;
    private volatile RuntimeException failure;

    public MpiTransport(int rank, int size, MpiTransportOptions options) {
        this.rank = rank;
        this.size = size;
        this.options = options;
        this.pool = new BufferPool(options.poolRetainBytes(), options.poolGcTriggerBytes());
        this.demux = new InboundDemux(this, pool, size, options);
        this.sendOrders = new PeerSendOrder[size];
        for (int r = 0; r < size; r++) {
            sendOrders[r] = new PeerSendOrder(options.peerSendWindow());
        }
    }

    /** The send window to {@code peerRank} that every comm to it shares. */
    PeerSendOrder sendOrder(int peerRank) {
        return sendOrders[peerRank];
    }

    /** Connects the transport to the engine that feeds it; once, before any comm is made. */
    public void attach(ProgressEngine progress) {
        this.encoder = new MessageEncoder(pool, progress.options().eagerBytes(), options.chunkBytes());
        this.engine = progress;
    }

    /** The limits this transport was made with. */
    /** Whether any comm of this rank is open: with none (a job whose comms are all tcp), there is nothing to drive. */
    public boolean hasComms() {
        return !comms.isEmpty();
    }

    public MpiTransportOptions options() {
        return options;
    }

    ProgressEngine engine() {
        return engine;
    }

    public int rank() {
        return rank;
    }

    /** The pool this transport sends from and receives large native frames into (its counters show reuse). */
    public BufferPool bufferPool() {
        return pool;
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
        engine.submit(encoder.control(null, target[0], Envelope.CONNECT, target[1], id));
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

    // ---- for the encoder, the demux and the comms ----

    /** Encodes a DATA message; {@code mayZeroCopy} false copies every frame (a writer that cannot wait for MPI). */
    MessageEncoder.Prepared prepare(MpiComm comm, Message message, boolean mayZeroCopy) {
        return encoder.data(comm, message, mayZeroCopy);
    }

    OutgoingMessage control(MpiComm comm, int dest, byte kind, int dst, int src) {
        return encoder.control(comm, dest, kind, dst, src);
    }

    MpiComm comm(int id) {
        return comms.get(id);
    }

    /** Sends {@code comm}'s peer a CREDIT granting {@code credit}, or (null) asking its reader for credit. Any thread. */
    void credit(MpiComm comm, CreditWindow.Credit credit) {
        engine.submit(encoder.credit(comm.peerRank(), comm.peerId(), comm.id(), credit));
    }

    /** Sends a control envelope that belongs to no comm (REJECT, an ABORT for a stale ACCEPT). */
    void reply(int dest, byte kind, int dst, int src) {
        engine.submit(encoder.control(null, dest, kind, dst, src));
    }

    /** A CONNECT to listener {@code port} from {@code source}'s comm {@code clientId}. Engine thread. */
    void onConnect(int source, int port, int clientId) {
        MpiListener listener = listeners.get(port);
        if (listener == null) {
            reply(source, Envelope.REJECT, clientId, 0);
            return;
        }
        int id = nextId.getAndIncrement();
        MpiComm comm = new MpiComm(this, id, source, clientId, MpiComm.OPEN, listener.options(), listener.listenAddress(),
                Address.mpi(source));
        comms.put(id, comm);
        comm.sendAccept();
        listener.accepted(comm);
    }

    /**
     * {@code comm} (in push mode) has something for its handler: a complete message, or its end. The next pass
     * delivers it ({@link #deliver}); with no engine to pass any more, the caller delivers it now. Any thread.
     */
    void schedule(MpiComm comm) {
        ready.add(comm);
        if (engine.isRunning()) {
            engine.wakeUp();
        } else {
            deliver();
        }
    }

    /**
     * Hands push-mode comms their complete messages and ends, one comm after another; nested calls (a handler
     * whose action schedules a comm) leave it to the outer loop, so a handler is never re-entered. The thread
     * driving the engine, at the end of each pass.
     */
    @Override
    public int deliver() {
        if (ready.isEmpty() || delivering.isHeldByCurrentThread()) {
            return 0;
        }
        delivering.lock();
        try {
            int delivered = 0;
            MpiComm comm;
            while ((comm = ready.poll()) != null) {
                delivered += comm.deliver();
            }
            return delivered;
        } finally {
            delivering.unlock();
        }
    }

    // ---- InboundRouter: what the engine receives goes to the demux ----

    @Override
    public void onEager(int source, int tag, MemorySegment data) {
        demux.onEager(source, tag, data);
    }

    @Override
    public Target onLarge(int source, int tag, long bytes) {
        return demux.onLarge(source, tag, bytes);
    }

    @Override
    public void onEngineFailure(RuntimeException cause) {
        failure = cause;
        shutdown("MPI progress engine failed: " + cause.getMessage());
    }
}
