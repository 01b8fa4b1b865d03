package io.dask4j.comm;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Push mode for a comm that only knows how to block in {@link Comm#read()}: a virtual thread reads in a
 * loop and calls the handler, so every transport offers {@link Comm#receive} even before it delivers on
 * its own thread. Costs one hand-off per message (the reader's wake-up); transports that can deliver
 * from their own thread override {@link Comm#receive} instead.
 *
 * <p>Pausing stops the loop before its next {@code read()}, so the transport's own back-pressure (a full
 * socket buffer, unread MPI credits) pauses the peer.
 */
public final class ReadLoopReceiver implements Receiving {

    private final Comm comm;
    private final MessageHandler handler;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition resumed = lock.newCondition();
    private boolean paused;

    private ReadLoopReceiver(Comm comm, MessageHandler handler) {
        this.comm = comm;
        this.handler = handler;
    }

    /** Starts a virtual thread that delivers {@code comm}'s messages to {@code handler} until the comm ends. */
    public static ReadLoopReceiver start(Comm comm, MessageHandler handler) {
        ReadLoopReceiver receiver = new ReadLoopReceiver(comm, handler);
        Thread.ofVirtual().name("receive " + comm.peerAddress()).start(receiver::run);
        return receiver;
    }

    @Override
    public void pause() {
        lock.lock();
        try {
            paused = true;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void resume() {
        lock.lock();
        try {
            paused = false;
            resumed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void run() {
        CommException end;
        try {
            while (true) {
                awaitResumed();
                handler.onMessage(comm.read());
            }
        } catch (CommException e) {
            end = e;
        } catch (InterruptedException e) {
            comm.abort();
            end = new CommClosedException("receiver interrupted", e);
        }
        handler.onClose(end);
    }

    private void awaitResumed() throws InterruptedException {
        lock.lock();
        try {
            while (paused && !comm.isClosed()) {
                resumed.await();
            }
        } finally {
            lock.unlock();
        }
    }
}
