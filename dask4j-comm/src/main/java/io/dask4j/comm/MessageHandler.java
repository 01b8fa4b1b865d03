package io.dask4j.comm;

/**
 * Receives a {@link Comm}'s messages in push mode (see {@link Comm#receive}).
 *
 * <p><b>Threads.</b> The transport calls these methods on its own delivery thread (a tcp reader, the
 * MPI progress engine's pass, or the adapter thread of {@link ReadLoopReceiver}), one call at a time and in
 * arrival order, never concurrently for one comm. A handler must return quickly: on a shared delivery
 * thread (the MPI engine) a slow handler delays every comm of the process. A handler that cannot keep up
 * calls {@link Receiving#pause()} and hands the work to another thread; that pauses the peer through the
 * transport's own flow control, never by dropping messages.
 *
 * <p><b>Writing from a handler</b> is allowed (a reply, a relay): a transport never holds a lock that the write
 * needs while it calls the handler, and inproc, which delivers on the writer's thread, queues a message for a
 * handler already running further up the same stack instead of recursing. A write may still wait for the peer
 * to read (back-pressure), as any write may.
 *
 * <p><b>Failures.</b> An exception thrown by {@link #onMessage} aborts the comm; {@link #onClose} then receives a
 * {@link CommClosedException} whose cause is that exception. It never propagates to the peer's writer (inproc)
 * or kills the delivery thread. An exception thrown by {@code onClose} is logged and dropped.
 */
public interface MessageHandler {

    /** The next message; the handler owns it (and should {@link Message#release()} its frames when done). */
    void onMessage(Message message);

    /**
     * The comm ended: closed by either end, aborted, or broken. Called exactly once, after the last {@link
     * #onMessage}; {@code cause} says why (a {@link CommClosedException} for an orderly close, a {@link
     * ProtocolException} for malformed input). After the peer's close it comes once every message the peer wrote
     * before closing was delivered; after a local {@link Comm#close()} or {@link Comm#abort()} it comes at once,
     * even while paused, and messages not yet delivered are released undelivered.
     */
    void onClose(CommException cause);
}
