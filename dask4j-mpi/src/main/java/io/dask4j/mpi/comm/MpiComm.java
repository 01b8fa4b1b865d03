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
import java.util.concurrent.atomic.AtomicLong;
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
 * <p><b>Waiting writers.</b> A write that copies its frames returns once they are copied, unless the comm's
 * sends or copies still in flight exceed its {@link SendBudget}, or the sends of this rank to the peer rank exceed
 * their {@link PeerSendOrder} window: then it waits for sends to complete first. It also waits while {@link
 * MpiTransportOptions#readWindow} of its messages are unread by the peer's reader, which says what it has read with a CREDIT every
 * {@link #CREDIT_BATCH} messages: small messages complete in MPI as soon as the library has buffered them, so
 * without credits a writer to a reader that stopped reading never waited, and the peer's MPI library held
 * everything unmatched (as tcp's writer waits on a full socket, this one waits on credits). A write
 * sent from the caller's native memory returns once MPI is done reading it.
 *
 * <p><b>Push mode.</b> After {@link #receive}, the thread driving the engine hands each complete message to the
 * handler at the end of a pass ({@link MpiTransport#deliver}): no reader thread, no wake-up. A paused handler
 * reads nothing, so it sends no CREDIT and the peer's writers wait once their window is unread, as for a reader
 * that stops reading. A handler may write: on the engine's thread a write never waits (it copies its frames,
 * takes its credit and budget even past their limits, and is posted at once), since nothing else would move
 * the engine meanwhile; a handler that writes floods must pause itself. Its {@link #close} does not wait for
 * the flush either.
 *
 * <p><b>Interrupts.</b> A reader, or a writer waiting for the send budget, that is interrupted gets a {@link
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
    private final SendBudget sendBudget;
    /** Messages a writer may have unread by the peer's reader before it waits for a CREDIT. */
    private final int readWindow;
    /** Bytes of received, unread messages past which the next DATA for this comm is held back. */
    private final long inboxLimit;
    /** The window on this rank's sends to the peer rank, shared with the other comms to it. */
    private final PeerSendOrder peerSendOrder;
    /** Messages handed to the engine and not posted yet: a direct send must not overtake them. */
    private final AtomicInteger queued = new AtomicInteger();
    /** Bytes of received messages not read yet (receive-side back-pressure, see {@link InboundDemux}). */
    private final AtomicLong inboxBytes = new AtomicLong();
    /** Writer side: messages written that the peer's reader has not credited yet. */
    private final AtomicInteger uncredited = new AtomicInteger();
    /** Reader side: messages read since the last CREDIT sent for them. */
    private final AtomicInteger readSinceCredit = new AtomicInteger();
    private volatile boolean heldBack;
    /** The largest DATA message routed to this comm now: a handshake's size until {@link #liftHandshakeLimit}. */
    private volatile long acceptBytes;
    private final Object writeLock = new Object();
    private volatile int peerId;
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
        MpiTransportOptions limits = transport.options();
        this.sendBudget = new SendBudget(limits.sendBudgetBytes(), limits.sendsInFlight());
        this.readWindow = limits.readWindow();
        this.inboxLimit = limits.inboxBytes();
        this.peerId = peerId;
        this.state = state;
        this.options = options;
        this.localAddress = localAddress;
        this.peerAddress = peerAddress;
        this.acceptBytes = Math.min(options.maxMessageBytes(), HANDSHAKE_MAX_MESSAGE_BYTES);
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
     * The handshake succeeded: larger messages may now reach the reader, including one the engine already holds
     * back (see {@link InboundDemux}). Handshaking thread.
     */
    @Override
    public void liftHandshakeLimit(long maxMessageBytes) {
        acceptBytes = maxMessageBytes;
        transport.onRoom();
    }

    /** Whether the handshake has not lifted the limit on message size yet. Any thread. */
    boolean handshakeLimited() {
        return acceptBytes < options.maxMessageBytes();
    }

    long acceptBytes() {
        return acceptBytes;
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
        long left = inboxBytes.addAndGet(-message.bytes());
        if (heldBack && left <= inboxLimit) {
            heldBack = false;
            transport.onRoom();
        }
        if (readSinceCredit.incrementAndGet() >= CREDIT_BATCH) {
            int read = readSinceCredit.getAndSet(0);
            if (read > 0 && state == OPEN) {
                transport.credit(this, read);
            }
        }
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
        if (state != OPEN) {
            throw closed();
        }
        long copied = MessageEncoder.copiedBytes(message);
        int sends = MessageEncoder.mpiSends(message, transport.options().chunkBytes());
        boolean driving = transport.engine().isDriving();
        if (driving) {
            copied = message.frameBytes(); // every frame is copied: this thread cannot wait for MPI to read them
            takeWhileDriving(copied, sends);
        } else {
            takeBudget(copied, sends);
        }
        OutgoingMessage out;
        boolean zeroCopy;
        try {
            synchronized (writeLock) {
                MessageEncoder.Prepared prepared = transport.prepare(this, message, !driving);
                out = prepared.message();
                zeroCopy = prepared.zeroCopy();
            }
        } catch (RuntimeException | Error e) {
            sendBudget.give(copied, sends);
            peerSendOrder.give(sends);
            uncredited.decrementAndGet();
            throw e;
        }
        out.budget(copied, sends);
        unsentMessages.incrementAndGet();
        ProgressEngine engine = transport.engine();
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
     * Waits until the comm's sends and copies in flight leave room for a message's share, then takes it.
     * Before anything is copied, so an interrupt or a close can end the wait without a trace. Writer's thread.
     */
    private void takeBudget(long bytes, int sends) {
        if (tryTakeAll(bytes, sends)) {
            return;
        }
        Thread me = Thread.currentThread();
        writer = me;
        peerSendOrder.waiting(me);
        try {
            // Completions (onSendDone, and the peer's drain for the send window) wake us; awaitSends keeps the
            // engine polling the sends meanwhile.
            while (!tryTakeAll(bytes, sends)) {
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
                transport.engine().awaitSends(() -> state != OPEN
                        || (uncredited.get() < readWindow && sendBudget.fits(bytes, sends) && peerSendOrder.fits(sends)),
                        WAIT_SLICE_NANOS);
            }
        } finally {
            writer = null;
            peerSendOrder.done(me);
        }
    }

    /**
     * A write on the thread driving the engine (a push-mode handler's): nothing else moves the engine meanwhile, so
     * it takes its credit and budget whatever is out. Only the ordering guard is waited for, by completing sends
     * here (the guard keeps Open MPI from matching the wrong message, so it cannot be overdrawn).
     */
    private void takeWhileDriving(long bytes, int sends) {
        ProgressEngine engine = transport.engine();
        while (!peerSendOrder.tryTake(sends)) {
            if (state != OPEN) {
                throw closed();
            }
            if (engine.failure() != null) {
                throw new CommClosedException("MPI progress engine failed", engine.failure());
            }
            if (engine.testRequests() == 0) {
                Thread.onSpinWait();
            }
        }
        uncredited.incrementAndGet();
        sendBudget.take(bytes, sends);
    }

    /** Takes a credit, this comm's send budget and the peer's send window together, or none of them. */
    private boolean tryTakeAll(long bytes, int sends) {
        if (uncredited.incrementAndGet() > readWindow) {
            uncredited.decrementAndGet();
            return false;
        }
        if (!sendBudget.tryTake(bytes, sends)) {
            uncredited.decrementAndGet();
            return false;
        }
        if (peerSendOrder.tryTake(sends)) {
            return true;
        }
        sendBudget.give(bytes, sends);
        uncredited.decrementAndGet();
        return false;
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
        if (s == CLOSED || s == REJECTED) {
            return;
        }
        if (s == OPEN || s == PEER_CLOSED) {
            waiter = Thread.currentThread();
            unsentMessages.incrementAndGet();
            submit(transport.control(this, peerRank, Envelope.CLOSE, peerId, id));
            if (transport.engine().isDriving()) {
                markClosed("comm closed locally"); // posted already, after the data: MPI delivers it in order
                return;
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
        return s == CLOSED || s == PEER_CLOSED || s == REJECTED;
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

    /** Whether a new message must wait: the reader is far behind (and has something to read). Engine thread. */
    boolean overBudget() {
        return state == OPEN && inboxBytes.get() > inboxLimit && !inbox.isEmpty();
    }

    /** A message for this comm is held back until the reader catches up or the handshake ends. Engine thread. */
    void heldBack() {
        heldBack = true;
        // The reader may have caught up between overBudget() and the flag: then it did not call onRoom.
        if (!overBudget()) {
            heldBack = false;
            transport.onRoom();
        }
    }

    void enqueue(IncomingMessage message) {
        inboxBytes.addAndGet(message.bytes());
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

    /** The peer's reader has read {@code read} more of this comm's messages. Engine thread. */
    void onCredit(int read) {
        if (read > 0) {
            uncredited.addAndGet(-read);
            wake(writer);
        }
    }

    void onSendDone(OutgoingMessage message) {
        sendBudget.give(message.budgetBytes(), message.budgetSends());
        peerSendOrder.give(message.budgetSends());
        wake(writer);
        if (unsentMessages.decrementAndGet() == 0) {
            wake(waiter);
        }
    }

    /** Copied bytes of this comm's writes that MPI has not finished sending (a gauge for tests). Any thread. */
    long unsentCopiedBytes() {
        return sendBudget.outstandingBytes();
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
        // A message held back for this comm (reader behind, or before the handshake) is dropped now.
        heldBack = false;
        transport.onRoom();
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
