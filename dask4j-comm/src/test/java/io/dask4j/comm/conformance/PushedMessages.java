package io.dask4j.comm.conformance;

import io.dask4j.comm.Comm;
import io.dask4j.comm.CommClosedException;
import io.dask4j.comm.CommException;
import io.dask4j.comm.Message;
import io.dask4j.comm.MessageHandler;
import io.dask4j.comm.Receiving;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;

/**
 * A handler that queues what a comm in push mode delivers, so that a test can take messages as if it read them,
 * and that records every breach of the {@link MessageHandler} contract it sees: overlapping calls, a message after
 * onClose, a second onClose. After onClose, every {@link #take()} throws the cause.
 */
public final class PushedMessages implements MessageHandler {

    private final BlockingQueue<Object> delivered = new LinkedBlockingQueue<>();
    private final AtomicBoolean inCall = new AtomicBoolean();
    private final AtomicInteger closes = new AtomicInteger();
    private final AtomicInteger messages = new AtomicInteger();
    private final List<String> breaches = new CopyOnWriteArrayList<>();
    private final BiConsumer<PushedMessages, Message> reaction;
    private volatile Receiving receiving;

    private PushedMessages(BiConsumer<PushedMessages, Message> reaction) {
        this.reaction = reaction;
    }

    /** Puts {@code comm} in push mode with a new handler of this kind. */
    public static PushedMessages receive(Comm comm) {
        return receive(comm, (handler, message) -> { });
    }

    /**
     * Puts {@code comm} in push mode with a handler that queues each message and then runs {@code reaction} inside
     * onMessage (on the delivery thread; an exception it throws is the handler's).
     */
    public static PushedMessages receive(Comm comm, BiConsumer<PushedMessages, Message> reaction) {
        PushedMessages handler = new PushedMessages(reaction);
        handler.receiving = comm.receive(handler);
        return handler;
    }

    @Override
    public void onMessage(Message message) {
        enter("onMessage");
        try {
            if (closes.get() > 0) {
                breaches.add("onMessage after onClose: " + message.op());
            }
            messages.incrementAndGet();
            delivered.add(message);
            reaction.accept(this, message);
        } finally {
            leave();
        }
    }

    @Override
    public void onClose(CommException cause) {
        enter("onClose");
        try {
            if (cause == null) {
                breaches.add("onClose without a cause");
            }
            if (closes.incrementAndGet() > 1) {
                breaches.add("onClose called " + closes.get() + " times");
            }
            delivered.add(cause == null ? new CommClosedException("no cause") : cause);
        } finally {
            leave();
        }
    }

    /** The next message, waiting up to 20 s; throws the onClose cause once the comm ended. */
    public Message take() {
        Object item;
        try {
            item = delivered.poll(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommClosedException("interrupted while waiting for a pushed message", e);
        }
        if (item == null) {
            throw new AssertionError("no message and no onClose within 20 s");
        }
        if (item instanceof CommException end) {
            delivered.add(end);   // the end stays, as a blocking read keeps failing
            throw end;
        }
        return (Message) item;
    }

    /** Waits for onClose and returns its cause; fails if a message comes first. */
    public CommException awaitClose() {
        try {
            Message unexpected = take();
            throw new AssertionError("a message came where onClose was due: " + unexpected);
        } catch (CommException end) {
            return end;
        }
    }

    public Receiving receiving() {
        return receiving;
    }

    /** Messages delivered so far (taken or not). */
    public int messageCount() {
        return messages.get();
    }

    public int closeCount() {
        return closes.get();
    }

    /** Contract breaches seen so far, empty if none. */
    public List<String> breaches() {
        return List.copyOf(breaches);
    }

    private void enter(String call) {
        if (!inCall.compareAndSet(false, true)) {
            breaches.add(call + " overlapped another call");
        }
    }

    private void leave() {
        inCall.set(false);
    }
}
