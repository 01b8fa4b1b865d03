package io.dask4j.comm;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Push mode for a comm that knows how to block in {@link Comm#read()}: one thread reads in a loop and calls
 * the handler. Every transport offers {@link Comm#receive} through it by default, on a virtual thread (one
 * hand-off per message: the JDK's poller wakes the virtual thread). Tcp runs it on a platform thread blocked in
 * the socket read, which the kernel wakes directly: one wake-up per burst of messages, decoded and handed over
 * one by one without further system calls.
 *
 * <p><b>Pausing</b> stops the loop before its next {@code read()}, so the transport's own back-pressure (a full
 * socket buffer, unread MPI credits) pauses the peer. A message whose read was under way when the pause came is
 * held until {@link #resume()}: after {@code pause()} returns, the only message that may still reach the handler is
 * one whose {@code onMessage} had already begun on the loop's thread.
 *
 * <p><b>Ending.</b> {@link MessageHandler#onClose} is called once, on the loop's thread, when {@code read()} fails
 * (the failure is the cause), when {@code onMessage} throws (the comm is aborted; the cause is a {@link
 * CommClosedException} whose cause is the handler's exception), or when the comm is closed while paused (the held
 * message, if any, is released undelivered). A paused loop notices a close at once if the comm calls {@link
 * #wake()} from its close and abort, else within {@link #CLOSE_CHECK_MILLIS}.
 */
public final class ReadLoopReceiver implements Receiving {

    /** How often a paused loop whose comm does not {@link #wake()} it looks whether the comm was closed. */
    public static final long CLOSE_CHECK_MILLIS = 50;
    private static final Logger LOG = LoggerFactory.getLogger(ReadLoopReceiver.class);

    private final Comm comm;
    private final MessageHandler handler;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition resumed = lock.newCondition();
    private volatile boolean paused;

    private ReadLoopReceiver(Comm comm, MessageHandler handler) {
        this.comm = comm;
        this.handler = handler;
    }

    /** Starts a virtual thread that delivers {@code comm}'s messages to {@code handler} until the comm ends. */
    public static ReadLoopReceiver start(Comm comm, MessageHandler handler) {
        return start(comm, handler, Thread.ofVirtual());
    }

    /**
     * Starts a thread made by {@code thread} (a fresh builder, which this names) that delivers {@code comm}'s
     * messages to {@code handler} until the comm ends.
     */
    public static ReadLoopReceiver start(Comm comm, MessageHandler handler, Thread.Builder thread) {
        ReadLoopReceiver receiver = new ReadLoopReceiver(comm, handler);
        thread.name("receive " + comm.peerAddress()).start(receiver::run);
        return receiver;
    }

    @Override
    public void pause() {
        paused = true;
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

    /** Makes a paused loop look at its comm again: a comm calls it when it closes, so that onClose comes at once. */
    public void wake() {
        lock.lock();
        try {
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
                Message message = comm.read();
                if (!awaitResumed()) {
                    message.release();   // closed while paused: nobody will take it
                    continue;            // the next read fails as closed
                }
                try {
                    handler.onMessage(message);
                } catch (RuntimeException | Error e) {
                    comm.abort();
                    end = new CommClosedException("the message handler of " + comm + " failed: " + e, e);
                    break;
                }
            }
        } catch (CommException e) {
            end = e;
        } catch (RuntimeException | Error e) {
            comm.abort();   // a read that failed otherwise (out of memory for a frame): the stream is lost
            end = new CommClosedException("reading from " + comm + " failed: " + e, e);
        } catch (InterruptedException e) {
            comm.abort();
            end = new CommClosedException("receiver of " + comm + " interrupted", e);
        }
        try {
            handler.onClose(end);
        } catch (RuntimeException | Error e) {
            LOG.warn("onClose of {} failed", comm, e);
        }
    }

    /** Waits while paused; false if the comm closed meanwhile (still paused). */
    private boolean awaitResumed() throws InterruptedException {
        if (!paused) {
            return true;
        }
        lock.lock();
        try {
            while (paused && !comm.isClosed()) {
                resumed.await(CLOSE_CHECK_MILLIS, TimeUnit.MILLISECONDS);
            }
            return !paused;
        } finally {
            lock.unlock();
        }
    }
}
