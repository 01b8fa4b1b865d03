package io.dask4j.mpi.comm;

import io.dask4j.comm.Address;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommClosedException;
import io.dask4j.comm.MessageHandler;
import io.dask4j.comm.Receiving;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.LimitedComm;
import io.dask4j.comm.Message;
import io.dask4j.comm.ProtocolException;
import io.dask4j.mpi.engine.ProgressEngine;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A raw comm of the mpi backend: one end of a connection between two ranks, told apart from every other
 * connection between them by a pair of comm ids (see {@link MpiTransport}).
 *
 * <p><b>Threads.</b> One reader and one writer at a time, as {@link Comm} says; {@link #close}, {@link
 * #abort} and {@link #isClosed} from any thread. The {@code on*} methods run on the thread driving the
 * progress engine. A platform thread blocked in {@link #read} drives MPI progress itself for a while
 * (caller-runs); a virtual thread parks until the engine wakes it. {@link #write} posts the message from the
 * writer's thread when the engine's lock is free ({@link ProgressEngine#tryPost}), else queues it for the engine.
 *
 * <p><b>Waiting writers.</b> A writer waits only for credit: its peer's reader grants it in messages and bytes
 * ({@link CreditWindow}), so a writer to a reader that stopped reading waits once the reader's window is unread,
 * and nothing else does (as tcp's writer waits on a full socket). Where the ABI needs it, the sends of this rank to
 * the peer rank also stay within their {@link PeerSendOrder} window. A write that copies its frames then returns
 * once they are copied; a write sent from the caller's native memory returns once MPI is done reading it.
 *
 * <p><b>Push mode.</b> After {@link #receive}, the thread driving the engine hands each complete message to the
 * handler at the end of a pass ({@link MpiTransport#deliver}): no reader thread, no wake-up. A paused handler
 * reads nothing, so it grants no credit and the peer's writers wait once its window is unread, as for a reader
 * that stops reading. A handler may write: on the engine's thread a write never waits (its frames are copied, and
 * it goes at once if credit allows, else joins the comm's backlog, which arriving credit drains in order), since
 * nothing else would move the engine meanwhile; a handler that writes floods must pause itself. Its {@link #close}
 * does not wait for the flush either.
 *
 * <p><b>Interrupts.</b> A reader, or a writer waiting for credit, that is interrupted gets a {@link
 * CommClosedException} with its interrupt flag still set (the comm stays open). A zero-copy writer waits for
 * MPI regardless (it must not return while MPI reads its memory) and keeps its flag; {@link #close} stops
 * flushing when interrupted and closes.
 */
final class MpiComm implements LimitedComm {

    static final int CONNECTING = 0;
    static final int OPEN = 1;
    static final int PEER_CLOSED = 2;
    static final int CLOSED = 3;
    static final int REJECTED = 4;

    /**
     * How many messages a reader reads before it sends a CREDIT for them. Fixed, not configurable: the two ends of
     * a comm may run with different windows, and each must stay above the other's batch, or a writer would wait
     * for a credit its peer never sends.
     */
    static final int CREDIT_BATCH = 1024;

    private static final long CLOSE_FLUSH_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** How long a reader or zero-copy writer waits between looks at the comm's state (every change also wakes it). */
    private static final long WAIT_SLICE_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final MpiTransport transport;
    private final int id;
    private final int peerRank;
    private final CommOptions options;
    private final Address localAddress;
    private final Address peerAddress;
    private final ConcurrentLinkedQueue<IncomingMessage> inbox = new ConcurrentLinkedQueue<>();
    private final AtomicInteger unsentMessages = new AtomicInteger();
    /** The credit this comm's peer granted and this comm grants (see {@link CreditWindow}). */
    private final CreditWindow flow = new CreditWindow();
    /** Writes made on the engine's thread that wait for credit, in order (see {@link #writeWhileDriving}). */
    private final ConcurrentLinkedQueue<Pending> backlog = new ConcurrentLinkedQueue<>();
    /** The window on this rank's sends to the peer rank, shared with the other comms to it. */
    private final PeerSendOrder peerSendOrder;
    /** Messages handed to the engine and not posted yet: a direct send must not overtake them. */
    private final AtomicInteger queued = new AtomicInteger();
    private final Object writeLock = new Object();
    private volatile int peerId;
    /** close() queued its CLOSE behind the backlog: no more writes; the comm closes when the CLOSE is posted. */
    private volatile boolean closingAfterBacklog;
    private volatile int state;
    private volatile String closeReason = "comm closed";
    private volatile Thread reader;
    private volatile Thread waiter;
    private volatile Thread writer;
    /** The push-mode handler, or null while the comm is read with {@link #read}. */
    private volatile MessageHandler handler;
    private volatile boolean pushPaused;
    /** Whether this comm waits in the transport's delivery queue. */
    private final AtomicBoolean scheduled = new AtomicBoolean();
    /** Whether the handler has had its {@code onClose}; delivering thread only. */
    private boolean endDelivered;

    MpiComm(MpiTransport transport, int id, int peerRank, int peerId, int state, CommOptions options,
            Address localAddress, Address peerAddress) {
        this.transport = transport;
        this.id = id;
        this.peerRank = peerRank;
        this.peerSendOrder = transport.sendOrder(peerRank);
        this.peerId = peerId;
        this.state = state;
        this.options = options;
        this.localAddress = localAddress;
        this.peerAddress = peerAddress;
    }

    int id() {
        return id;
    }

    int peerRank() {
        return peerRank;
    }

    int peerId() {
        return peerId;
    }

    int state() {
        return state;
    }

    CommOptions options() {
        return options;
    }

    /**
     * The handshake succeeded: this comm's receive window opens to its configured size, announced to the peer in a
     * CREDIT (until then the peer may send only a handshake's worth, see {@link CreditWindow}). Handshaking thread.
     */
    @Override
    public void liftHandshakeLimit(long maxMessageBytes) {
        MpiTransportOptions limits = transport.options();
        sendCredit(flow.open(limits.readWindow(), limits.inboxBytes()));
    }

    /** Whether this comm's receive window is open (its handshake has ended). Any thread. */
    boolean windowOpen() {
        return flow.isOpen();
    }

    private void sendCredit(CreditWindow.Credit credit) {
        if (credit != null && state == OPEN) {
            transport.credit(this, credit);
        }
    }

    @Override
    public Message read() {
        if (handler != null) {
            throw new IllegalStateException("comm " + this + " is in push mode: its messages go to its handler");
        }
        Thread me = Thread.currentThread();
        while (true) {
            IncomingMessage head = inbox.peek();
            int s = state;
            if (s == CLOSED) {
                throw closed();
            }
            if (head != null && head.isComplete()) {
                inbox.poll();
                consumed(head);
                try {
                    return head.toMessage();
                } catch (ProtocolException e) {
                    abort();
                    throw e;
                }
            }
            if (head == null && s == PEER_CLOSED) {
                throw closed();
            }
            if (Thread.interrupted()) {
                me.interrupt();
                throw new CommClosedException("interrupted while reading from " + peerAddress + " (" + this + ")");
            }
            reader = me;
            transport.engine().await(this::readable, WAIT_SLICE_NANOS);
            reader = null;
        }
    }

    /** Push mode: from now on complete messages go to {@code messageHandler} on the thread driving the engine. */
    @Override
    public Receiving receive(MessageHandler messageHandler) {
        if (handler != null) {
            throw new IllegalStateException("comm " + this + " already delivers to a handler");
        }
        handler = java.util.Objects.requireNonNull(messageHandler, "handler");
        scheduleDelivery(); // what came before now, or the comm's end
        return new Receiving() {
            @Override
            public void pause() {
                pushPaused = true;
            }

            @Override
            public void resume() {
                pushPaused = false;
                scheduleDelivery();
            }
        };
    }

    private void scheduleDelivery() {
        if (handler != null && scheduled.compareAndSet(false, true)) {
            transport.schedule(this);
        }
    }

    /**
     * Hands the handler every complete message at the head of the inbox, then the comm's end once there is no
     * more; returns how many messages. Thread delivering for the transport (one at a time).
     */
    int deliver() {
        scheduled.set(false);
        MessageHandler h = handler;
        int delivered = 0;
        while (h != null && !endDelivered) {
            IncomingMessage head = inbox.peek();
            int s = state;
            // Closed (locally, or aborted) ends delivery even while paused; the peer's close waits its turn.
            if (s == CLOSED || (!pushPaused && head == null && s == PEER_CLOSED)) {
                endDelivered = true;
                h.onClose(closed());
                break;
            }
            if (pushPaused || head == null || !head.isComplete()) {
                break;
            }
            inbox.poll();
            consumed(head);
            Message message;
            try {
                message = head.toMessage();
            } catch (ProtocolException e) {
                abort();
                endDelivered = true;
                h.onClose(e);
                break;
            }
            delivered++;
            try {
                h.onMessage(message);
            } catch (RuntimeException e) {
                // A handler that throws cannot be trusted with what follows: end the comm, say why.
                abort();
                endDelivered = true;
                h.onClose(new CommClosedException("the handler of " + this + " failed: " + e, e));
                break;
            }
        }
        return delivered;
    }

    private void consumed(IncomingMessage message) {
        sendCredit(flow.read(message.bytes()));
    }

    /** Whether nothing waits in the inbox (read or not complete). Any thread; for tests. */
    boolean inboxEmpty() {
        return inbox.isEmpty();
    }

    private boolean readable() {
        IncomingMessage head = inbox.peek();
        int s = state;
        return s == CLOSED || (head != null && head.isComplete()) || (head == null && s == PEER_CLOSED);
    }

    @Override
    public void write(Message message) {
        if (state != OPEN || closingAfterBacklog) {
            throw closed();
        }
        long cost = CreditWindow.cost(message.frameBytes());
        int sends = MessageEncoder.mpiSends(message, transport.options().chunkBytes());
        ProgressEngine engine = transport.engine();
        if (engine.isDriving()) {
            writeWhileDriving(message, cost, sends);
            return;
        }
        takeCredit(cost, sends);
        OutgoingMessage out;
        boolean zeroCopy;
        try {
            synchronized (writeLock) {
                MessageEncoder.Prepared prepared = transport.prepare(this, message, true);
                out = prepared.message();
                zeroCopy = prepared.zeroCopy();
            }
        } catch (RuntimeException | Error e) {
            peerSendOrder.give(sends);
            flow.untake(cost);
            throw e;
        }
        out.budget(cost, sends);
        unsentMessages.incrementAndGet();
        if (!zeroCopy && queued.get() == 0) {
            // Posted from this thread if the engine's lock is free (nothing of ours is queued before it, so it
            // cannot overtake), else queued for the engine; posting counts it off either way.
            queued.incrementAndGet();
            if (!engine.tryPost(out)) {
                engine.submit(out);
            }
            return;
        }
        if (zeroCopy) {
            out.waitingThread(Thread.currentThread());
        }
        submit(out);
        if (zeroCopy) {
            awaitZeroCopy(out);
        }
    }

    /**
     * Waits until the peer's reader has granted credit for the message and the ordering guard has room, then takes
     * both. Before anything is copied, so an interrupt or a close can end the wait without a trace. A writer that
     * must wait for credit asks the reader for it once ({@link CreditWindow#request}). Writer's thread.
     */
    private void takeCredit(long cost, int sends) {
        if (tryTakeAll(cost, sends)) {
            return;
        }
        Thread me = Thread.currentThread();
        writer = me;
        peerSendOrder.waiting(me);
        try {
            // A CREDIT (onCredit) or a drain of the ordering window (onSendDone) wakes us; awaitSends keeps the engine
            // polling the sends meanwhile.
            while (!tryTakeAll(cost, sends)) {
                if (state != OPEN) {
                    throw closed();
                }
                if (Thread.interrupted()) {
                    me.interrupt();
                    throw new CommClosedException("interrupted while waiting to write to " + peerAddress + " (" + this + ")");
                }
                if (transport.engine().failure() != null) {
                    throw new CommClosedException("MPI progress engine failed", transport.engine().failure());
                }
                if (!flow.fits(cost) && flow.request()) {
                    transport.credit(this, null);
                }
                transport.engine().awaitSends(() -> state != OPEN
                        || (backlog.isEmpty() && flow.fits(cost) && peerSendOrder.fits(sends)), WAIT_SLICE_NANOS);
            }
        } finally {
            writer = null;
            peerSendOrder.done(me);
        }
    }

    /** Takes credit and the ordering guard's room together, or neither; never past writes still in the backlog. */
    private boolean tryTakeAll(long cost, int sends) {
        if (!backlog.isEmpty() || !flow.tryTake(cost)) {
            return false;
        }
        if (peerSendOrder.tryTake(sends)) {
            return true;
        }
        flow.untake(cost);
        return false;
    }

    /**
     * A write on the thread driving the engine (a push-mode handler's) never waits, since nothing else would move the
     * engine meanwhile: its frames are copied now, and it goes at once if credit and the ordering guard allow, else it
     * joins this comm's backlog, which credits and completed sends drain in order ({@link #flushBacklog}).
     */
    private void writeWhileDriving(Message message, long cost, int sends) {
        OutgoingMessage out;
        synchronized (writeLock) {
            out = transport.prepare(this, message, false).message();
        }
        out.budget(cost, sends);
        unsentMessages.incrementAndGet();
        queued.incrementAndGet();
        backlog.add(new Pending(out, cost, sends));
        flushBacklog();
    }

    /** Posts the backlog's head messages while credit and the ordering guard allow. Thread driving the engine. */
    private void flushBacklog() {
        Pending next;
        while ((next = backlog.peek()) != null) {
            if (next.cost() >= 0) {
                if (!flow.tryTake(next.cost())) {
                    if (flow.request()) {
                        transport.credit(this, null);
                    }
                    return;
                }
                if (!peerSendOrder.tryTake(next.sends())) {
                    flow.untake(next.cost());
                    return;
                }
            }
            backlog.poll();
            transport.engine().submit(next.out()); // posted at once: this thread drives
            if (next.cost() < 0) {
                markClosed("comm closed locally");
            }
        }
        wake(writer); // a writer waits behind the backlog
    }

    /** A message waiting in the backlog for credit; a negative cost marks a control message (CLOSE). */
    private record Pending(OutgoingMessage out, long cost, int sends) {
    }

    /**
     * MPI reads the caller's memory: we may return only once it is done with it, interrupted or not. The flag
     * is cleared while waiting (else every park returns at once and the wait spins) and restored after.
     */
    private void awaitZeroCopy(OutgoingMessage out) {
        boolean interrupted = false;
        try {
            while (true) {
                interrupted |= Thread.interrupted();
                if (transport.engine().await(out::isDone, WAIT_SLICE_NANOS)) {
                    break;
                }
                if (transport.engine().failure() != null) {
                    throw new CommClosedException("MPI progress engine failed", transport.engine().failure());
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        if (out.error() != 0) {
            throw closed();
        }
    }

    @Override
    public void close() {
        int s = state;
        if (s == CLOSED || s == REJECTED || closingAfterBacklog) {
            return;
        }
        if (s == OPEN || s == PEER_CLOSED) {
            waiter = Thread.currentThread();
            unsentMessages.incrementAndGet();
            OutgoingMessage closing = transport.control(this, peerRank, Envelope.CLOSE, peerId, id);
            if (!backlog.isEmpty()) {
                // Writes wait for credit before it: the CLOSE follows them, and the comm closes once it is posted.
                closingAfterBacklog = true;
                queued.incrementAndGet();
                backlog.add(new Pending(closing, -1, 0));
                transport.engine().submit(engine -> flushBacklog());
                if (transport.engine().isDriving()) {
                    return;
                }
            } else {
                submit(closing);
                if (transport.engine().isDriving()) {
                    markClosed("comm closed locally"); // posted already, after the data: MPI delivers it in order
                    return;
                }
            }
            // An interrupt ends the flush early (await returns at once), like tcp's close; the flag stays set.
            transport.engine().awaitSends(() -> unsentMessages.get() == 0 || state == CLOSED, CLOSE_FLUSH_NANOS);
            waiter = null;
        }
        markClosed("comm closed locally");
    }

    @Override
    public void abort() {
        int s = state;
        if (s == CLOSED || s == REJECTED) {
            return;
        }
        if (s == OPEN || s == PEER_CLOSED) {
            transport.engine().submit(transport.control(null, peerRank, Envelope.ABORT, peerId, id));
        }
        markClosed("comm aborted locally");
    }

    @Override
    public boolean isClosed() {
        int s = state;
        return closingAfterBacklog || s == CLOSED || s == PEER_CLOSED || s == REJECTED;
    }

    @Override
    public Address localAddress() {
        return localAddress;
    }

    @Override
    public Address peerAddress() {
        return peerAddress;
    }

    @Override
    public String toString() {
        return "MpiComm[" + localAddress + "#" + id + " <-> " + peerAddress + "#" + peerId + "]";
    }

    /**
     * Queues the ACCEPT that answers this comm's CONNECT, as a message of this comm: a write that posts
     * from its own thread ({@link ProgressEngine#tryPost}) checks that nothing of this comm is still queued, so
     * it cannot overtake the ACCEPT (the peer would drop a DATA for a comm it does not know yet). Engine thread.
     */
    void sendAccept() {
        unsentMessages.incrementAndGet();
        submit(transport.control(this, peerRank, Envelope.ACCEPT, peerId, id));
    }

    private void submit(OutgoingMessage out) {
        queued.incrementAndGet();
        transport.engine().submit(out);
    }

    // ---- engine side ----

    /** One of this comm's queued messages is being posted. Engine thread. */
    void onPosted() {
        queued.decrementAndGet();
    }

    /** Waits for the connect handshake of the transport; true if accepted. Caller's thread. */
    boolean awaitAccepted(long timeoutNanos) {
        waiter = Thread.currentThread();
        transport.engine().await(() -> state != CONNECTING, timeoutNanos);
        waiter = null;
        return state == OPEN;
    }

    void onAccepted(int remoteId) {
        peerId = remoteId;
        state = OPEN;
        wake(waiter);
    }

    void onRejected() {
        state = REJECTED;
        wake(waiter);
    }

    /**
     * A DATA message of {@code cost} bytes arrived for this comm: true (counted) if within the credit this comm
     * granted, false if the peer broke the protocol. Engine thread.
     */
    boolean accept(long cost) {
        return flow.accept(cost);
    }

    void enqueue(IncomingMessage message) {
        inbox.add(message);
        if (message.isComplete()) {
            wake(reader);
            scheduleDelivery();
        }
    }

    void onMessageComplete() {
        wake(reader);
        scheduleDelivery();
    }

    void onPeerClosed() {
        if (state == OPEN) {
            state = PEER_CLOSED;
            closeReason = "peer " + peerAddress + " closed the comm";
        }
        wake(reader);
        wake(writer); // a writer waiting for credits gets none now
        scheduleDelivery();
    }

    void onPeerAborted(String reason) {
        markClosed(reason);
    }

    /** The peer's reader granted credit (read messages, or opened its window). Engine thread. */
    void onCredit(CreditWindow.Credit credit) {
        flow.credited(credit.messages(), credit.bytes(), credit.windowMessages(), credit.windowBytes(), credit.open());
        flushBacklog();
        wake(writer);
    }

    /** The peer's writer waits for credit: grant what was read, now or at the next read. Engine thread. */
    void onCreditRequest() {
        sendCredit(flow.peerWaits());
    }

    void onSendDone(OutgoingMessage message) {
        peerSendOrder.give(message.budgetSends());
        if (!backlog.isEmpty()) {
            flushBacklog(); // the ordering guard may have drained
        }
        wake(writer);
        if (unsentMessages.decrementAndGet() == 0) {
            wake(waiter);
        }
    }

    /** Bytes this comm wrote that the peer's reader has not credited back (a gauge for tests). Any thread. */
    long uncreditedBytes() {
        return flow.unackedBytes();
    }

    void onSendFailed(String reason) {
        markClosed("send to " + peerAddress + " failed: " + reason);
    }

    void markClosed(String reason) {
        if (state != CLOSED) {
            closeReason = reason;
            state = CLOSED;
        }
        transport.forget(this);
        wake(reader);
        wake(waiter);
        wake(writer);
        scheduleDelivery();
    }

    private CommClosedException closed() {
        return new CommClosedException(closeReason + " (" + this + ")");
    }

    private static void wake(Thread thread) {
        if (thread != null) {
            LockSupport.unpark(thread);
        }
    }
}
