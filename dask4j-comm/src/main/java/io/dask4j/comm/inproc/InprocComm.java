package io.dask4j.comm.inproc;

import io.dask4j.comm.Address;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommClosedException;
import io.dask4j.comm.Frame;
import io.dask4j.comm.Message;
import io.dask4j.comm.MessageHandler;
import io.dask4j.comm.Receiving;
import io.dask4j.comm.stats.WireSize;
import io.dask4j.comm.wire.WireCodec;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * One end of an in-process comm: writes put the Message object into the peer's inbox, reads take from
 * our own. Closing puts an end-of-stream marker after everything already written (so close "flushes"),
 * and wakes our own pending read. Reading the peer's marker closes this end too, as a TCP reset would.
 *
 * <p><b>Push mode</b> ({@link #receive}): a write calls the peer's handler directly on the writing thread, with no
 * queue and no wake-up, unless the peer is paused or busy delivering on another thread; see {@link InprocDelivery}
 * for the order, re-entrancy and back-pressure rules. In read mode the inbox is unbounded, as before.
 *
 * <p>Threads: one reader and one writer at a time; close/abort from any thread. A reader on a platform
 * thread spins briefly before parking (a park/unpark costs ~10 us here); virtual threads never spin.
 */
final class InprocComm implements Comm {

    private static final Object PEER_CLOSED = new Object();
    private static final Object SELF_CLOSED = new Object();
    private static final int SPINS = 200;

    private final Address local;
    private final Address peerAddress;
    private final LinkedBlockingQueue<Object> inbox = new LinkedBlockingQueue<>();
    private volatile InprocComm peer;
    private volatile boolean closed;
    private volatile String closeReason;
    private volatile boolean closedLocally;
    /** Non-null once in push mode. */
    private volatile InprocDelivery delivery;

    InprocComm(Address local, Address peerAddress) {
        this.local = local;
        this.peerAddress = peerAddress;
    }

    static void link(InprocComm a, InprocComm b) {
        a.peer = b;
        b.peer = a;
    }

    @Override
    public Message read() {
        if (closed) {
            throw closedError();
        }
        Object item = Thread.currentThread().isVirtual() ? null : spinPoll();
        try {
            if (item == null) {
                item = inbox.take();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommClosedException("interrupted while reading from " + peerAddress, e);
        }
        if (item instanceof Message message) {
            return message;
        }
        inbox.offer(item);   // the end stays: later reads, or a later receive(), see it too
        throw endOfStream(item);
    }

    /** The error that an end-of-stream marker stands for; marks this end closed if the peer closed. */
    CommClosedException endOfStream(Object marker) {
        if (marker == PEER_CLOSED) {
            markClosed("closed by peer " + peerAddress);
        }
        return closedError();
    }

    private Object spinPoll() {
        for (int i = 0; i < SPINS; i++) {
            Object item = inbox.poll();
            if (item != null) {
                return item;
            }
            Thread.onSpinWait();
        }
        return null;
    }

    @Override
    public void write(Message message) {
        Objects.requireNonNull(message, "message");
        if (!WireSize.isBeingWritten(message)) {   // the handshaken layer's sizing checked it already
            WireCodec.checkEncodable(message);      // fail like tcp would, though nothing is encoded here
        }
        InprocComm p = peer;
        if (closed) {
            throw closedError();
        }
        if (p.closed) {
            markClosed("closed by peer " + peerAddress);
            throw closedError();
        }
        Message taken = detached(message);
        InprocDelivery pushed = p.delivery;
        if (pushed != null) {
            if (!pushed.deliverOrQueue(taken, this)) {
                markClosed("closed by peer " + peerAddress);
                throw closedError();
            }
        } else {
            p.enqueue(taken);
        }
    }

    /** Puts a message or marker in the inbox, and delivers it if a receive() began meanwhile. */
    private void enqueue(Object item) {
        inbox.offer(item);
        InprocDelivery pushed = delivery;
        if (pushed != null) {
            pushed.drain();
        }
    }

    @Override
    public Receiving receive(MessageHandler handler) {
        Objects.requireNonNull(handler, "handler");
        InprocDelivery pushed;
        synchronized (this) {
            if (delivery != null) {
                throw new IllegalStateException(this + " is already in push mode");
            }
            pushed = new InprocDelivery(this, inbox, handler);
            delivery = pushed;
        }
        if (closedLocally) {
            pushed.abandon(closedError());
        }
        pushed.drain();   // what was written before, and an end already seen by read()
        return pushed;
    }

    void failIfClosed() {
        if (closed) {
            throw closedError();
        }
    }

    /**
     * The message itself, or, if it carries releasable frames (received from another transport and written
     * on), a copy of those frames: the writer may release them once this write returns, and the peer must
     * not see that memory vanish under it.
     */
    private static Message detached(Message message) {
        boolean releasable = false;
        for (Frame f : message.frames()) {
            releasable |= f.isReleasable();
        }
        if (!releasable) {
            return message;
        }
        List<Frame> frames = new ArrayList<>(message.frames().size());
        for (Frame f : message.frames()) {
            if (f.isReleasable()) {
                MemorySegment copy = WireCodec.allocateFrame(WireCodec.KIND_BYTES, f.size());
                MemorySegment.copy(f.segment(), 0, copy, 0, f.size());
                frames.add(new Frame(copy));
            } else {
                frames.add(f);
            }
        }
        return new Message(message.op(), message.fields(), frames);
    }

    @Override
    public void close() {
        if (markClosed("closed locally")) {
            closedLocally = true;
            inbox.offer(SELF_CLOSED);
            InprocComm p = peer;
            InprocDelivery toPeer = p.delivery;
            if (toPeer != null) {
                toPeer.wakeWriters();   // our own writer may wait for room there
            }
            p.enqueue(PEER_CLOSED);
            InprocDelivery own = delivery;
            if (own != null) {
                own.abandon(closedError());
            }
        }
    }

    /** Nothing is ever buffered unsent, so aborting is closing. */
    @Override
    public void abort() {
        close();
    }

    private synchronized boolean markClosed(String reason) {
        if (closed) {
            return false;
        }
        closeReason = reason;
        closed = true;
        return true;
    }

    private CommClosedException closedError() {
        return new CommClosedException("inproc comm " + local + " -> " + peerAddress + " is closed (" + closeReason + ")");
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    @Override
    public Address localAddress() {
        return local;
    }

    @Override
    public Address peerAddress() {
        return peerAddress;
    }

    @Override
    public String toString() {
        return "InprocComm[" + local + " -> " + peerAddress + "]";
    }
}
