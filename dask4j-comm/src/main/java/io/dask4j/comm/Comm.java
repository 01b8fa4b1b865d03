package io.dask4j.comm;

/**
 * A message-oriented, bidirectional connection between two endpoints.
 *
 * <p><b>Threads.</b> There should be only one reader and one writer at a time; a reader and a writer
 * may run concurrently on different threads. {@link #close()}, {@link #abort()} and {@link #isClosed()}
 * may be called from any thread, and end a pending {@link #read()}: at once after an abort; after a close,
 * once the close is complete (tcp keeps reading and dropping input until the peer has closed too, at most
 * 10 s, so that the kernel does not reset the connection under our last message).
 *
 * <p><b>Blocking, meant for virtual threads.</b> {@link #read()} and {@link #write} block the calling
 * thread. A virtual thread per comm costs a few hundred bytes, needs no future per message on the hot
 * path, and gives natural back-pressure; callers that must not block (the scheduler's event loop) hand
 * writes to a batched sender. Backends never block in MPI or spin on a virtual thread (one may post a
 * non-blocking MPI send when the progress engine's lock is free): waiting happens on Java-level queues and
 * locks, which unmount the virtual thread.
 *
 * <p><b>Closing.</b> {@link #close()} flushes what was written and then closes; {@link #abort()}
 * closes immediately and abruptly, dropping unsent data. After either, reads and writes on both ends
 * fail with {@link CommClosedException} (never hang).
 */
public interface Comm extends AutoCloseable {

    /**
     * Blocks until the next message arrives.
     *
     * @throws CommClosedException if the comm is or becomes closed, by either end
     * @throws ProtocolException if the peer sent malformed bytes (the comm is then aborted)
     */
    Message read();

    /**
     * Sends a message; returns once the transport has taken it. The frames' memory must not be modified
     * afterwards: a backend may hand it to the reader without copying (inproc does), so treat a written
     * frame as given away.
     *
     * @throws CommClosedException if the comm is closed
     */
    void write(Message message);

    /** Flushes pending writes, then closes. Idempotent. */
    @Override
    void close();

    /** Closes immediately without flushing. Idempotent. */
    void abort();

    boolean isClosed();

    Address localAddress();

    Address peerAddress();

    /**
     * Switches this comm to push mode: from now on the transport hands each message to {@code handler} on
     * its own delivery thread (see {@link MessageHandler} for the threading contract) and {@link #read()}
     * must no longer be called. Call at most once, and not while a {@code read()} is pending. Writes are not
     * affected. Messages that arrived before the call are delivered first. The default delivers through a {@link
     * ReadLoopReceiver} (one virtual thread per comm); backends override it to deliver without that hand-off: inproc
     * calls the handler on the writer's thread, tcp on one platform thread blocked in the socket read.
     *
     * @return the handle that pauses and resumes delivery (back-pressure for a handler that falls behind)
     */
    default Receiving receive(MessageHandler handler) {
        return ReadLoopReceiver.start(this, handler);
    }

    /** Who the peer said it is in the handshake ({@code ""} on a raw, not yet handshaken comm). */
    default String peerIdentity() {
        return "";
    }
}
