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
 */
public interface MessageHandler {

    /** The next message; the handler owns it (and must {@link Message#release()} its frames when done). */
    void onMessage(Message message);

    /**
     * The comm ended: closed by either end, aborted, or broken. Called exactly once, after the last {@link
     * #onMessage}; {@code cause} says why (a {@link CommClosedException} for an orderly close, a {@link
     * ProtocolException} for malformed input).
     */
    void onClose(CommException cause);
}
