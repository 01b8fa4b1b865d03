package io.dask4j.comm.inproc;

import io.dask4j.comm.CommClosedException;
import io.dask4j.comm.CommException;
import io.dask4j.comm.Message;
import io.dask4j.comm.MessageHandler;
import io.dask4j.comm.Receiving;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Push mode of an {@link InprocComm}: hands each message to the handler on the thread that wrote it, with no
 * queue and no wake-up when nothing is queued and nobody else is delivering.
 *
 * <p><b>One deliverer at a time.</b> Whoever wants to deliver (a writer, {@link #resume()}, a close) first takes
 * the delivery right (a compare-and-set of {@link #deliverer}); a thread that finds it taken queues its message in
 * the comm's inbox and returns, and the holder delivers the inbox in order before giving the right back (and looks
 * again after giving it back, so nothing is left behind). So handler calls never overlap and keep the write order,
 * no lock is held while a handler runs (no deadlock), and a handler that writes to a comm whose handler is running
 * further up its own stack only queues the message: the recursion is at most one level per comm.
 *
 * <p><b>Back-pressure.</b> While paused, or while the deliverer lags behind a writer on another thread, messages
 * queue; a writer that finds {@link #MAX_QUEUED} of them waits until half have gone (or the comm ends). A thread
 * never waits for room in a comm it is itself delivering (that would wait for itself): the handler's own
 * re-entrant writes may exceed the bound by what one handler call writes.
 *
 * <p><b>Ending.</b> The peer's close reaches the handler after every message written before it. A local close
 * or abort, or an exception from {@code onMessage} (which aborts the comm and becomes the cause of the {@link
 * CommClosedException} given to onClose), ends delivery at once, even while paused: what is still queued is
 * released undelivered. {@code onClose} runs exactly once, after the last {@code onMessage}.
 *
 * <p><b>Threads.</b> {@link #pause()} and {@link #resume()} from any thread; {@code resume()} delivers what queued
 * on the calling thread (unless a handler call is under way elsewhere, which then does).
 */
final class InprocDelivery implements Receiving {

    /** Messages queued for a paused or lagging handler before its peer's writer waits. */
    static final int MAX_QUEUED = 1024;
    private static final Logger LOG = LoggerFactory.getLogger(InprocDelivery.class);

    private final InprocComm comm;
    private final BlockingQueue<Object> inbox;
    private final MessageHandler handler;
    private final AtomicReference<Thread> deliverer = new AtomicReference<>();
    /** Set once: why delivery ends at once (local close or abort, a failed handler). */
    private final AtomicReference<CommException> abandoned = new AtomicReference<>();
    private final ReentrantLock roomLock = new ReentrantLock();
    private final Condition room = roomLock.newCondition();
    private volatile boolean writerWaiting;
    private volatile boolean paused;
    /** Written by the delivery right's holder only. */
    private volatile boolean ended;

    InprocDelivery(InprocComm comm, BlockingQueue<Object> inbox, MessageHandler handler) {
        this.comm = comm;
        this.inbox = inbox;
        this.handler = handler;
    }

    /**
     * From the peer's writer: delivers {@code message} on this thread if nothing is queued and nobody is delivering,
     * else queues it, first waiting for room if the queue is full.
     *
     * @return false if delivery ended while the writer waited for room (the message was not taken)
     * @throws CommClosedException if {@code writer} was closed while waiting for room
     */
    boolean deliverOrQueue(Message message, InprocComm writer) {
        Thread me = Thread.currentThread();
        if (!paused && deliverer.compareAndSet(null, me)) {
            boolean delivered = false;
            try {
                if (!paused && inbox.isEmpty() && !ended && abandoned.get() == null) {
                    deliver(message);
                    delivered = true;
                    deliverQueued();
                }
            } finally {
                deliverer.set(null);
            }
            if (delivered) {
                drain();
                return true;
            }
        }
        awaitRoom(me, writer);
        if (ended || abandoned.get() != null) {
            return false;
        }
        inbox.offer(message);
        drain();
        return true;
    }

    /** Delivers what is queued (messages, the peer's end-of-stream marker) if nobody else is delivering. */
    void drain() {
        Thread me = Thread.currentThread();
        while (hasWork() && deliverer.compareAndSet(null, me)) {
            try {
                deliverQueued();
            } finally {
                deliverer.set(null);
            }
        }
    }

    /** Ends delivery at once, dropping what is queued: the comm was closed or aborted locally. */
    void abandon(CommException cause) {
        abandoned.compareAndSet(null, cause);
        wakeWriters();
        drain();
    }

    @Override
    public void pause() {
        paused = true;
    }

    @Override
    public void resume() {
        paused = false;
        drain();
    }

    private boolean hasWork() {
        return !ended && (abandoned.get() != null || (!paused && !inbox.isEmpty()));
    }

    /** With the delivery right: delivers queued items until paused, empty or ended. */
    private void deliverQueued() {
        while (!ended) {
            CommException cause = abandoned.get();
            if (cause != null) {
                end(cause);
                return;
            }
            if (paused) {
                return;
            }
            Object item = inbox.poll();
            if (item == null) {
                return;
            }
            if (writerWaiting && inbox.size() <= MAX_QUEUED / 2) {
                wakeWriters();
            }
            if (item instanceof Message message) {
                deliver(message);
            } else {
                inbox.offer(item);   // keep the marker: a later read() must fail too
                end(comm.endOfStream(item));
            }
        }
    }

    private void deliver(Message message) {
        try {
            handler.onMessage(message);
        } catch (RuntimeException | Error e) {
            abandoned.compareAndSet(null, new CommClosedException("the message handler of " + comm + " failed: " + e, e));
            comm.abort();
        }
    }

    private void end(CommException cause) {
        ended = true;
        wakeWriters();
        Object item;
        while ((item = inbox.poll()) != null) {
            if (item instanceof Message message) {
                message.release();
            } else {
                inbox.offer(item);
                break;
            }
        }
        try {
            handler.onClose(cause);
        } catch (RuntimeException | Error e) {
            LOG.warn("onClose of {} failed", comm, e);
        }
    }

    private void awaitRoom(Thread me, InprocComm writer) {
        if (inbox.size() < MAX_QUEUED || deliverer.get() == me) {
            return;
        }
        roomLock.lock();
        try {
            while (inbox.size() > MAX_QUEUED / 2 && !ended && abandoned.get() == null && !writer.isClosed()) {
                writerWaiting = true;
                room.awaitUninterruptibly();
            }
        } finally {
            roomLock.unlock();
        }
        writer.failIfClosed();
    }

    /** Lets writers waiting for room look again (the queue shrank, or a comm closed). */
    void wakeWriters() {
        roomLock.lock();
        try {
            writerWaiting = false;
            room.signalAll();
        } finally {
            roomLock.unlock();
        }
    }
}
