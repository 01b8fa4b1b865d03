package io.dask4j.comm;

/**
 * The handle of a comm in push mode, returned by {@link Comm#receive}: pauses and resumes delivery.
 *
 * <p>While paused the transport delivers nothing more to the handler (a message already being delivered
 * may still arrive) and its flow control makes the peer's writes wait; no message is dropped. Both methods
 * may be called from any thread, including the handler's own, and are idempotent. A pause from the handler's own
 * thread takes effect before the next message; from another thread, a delivery already under way completes.
 * {@code resume()} may deliver what waited on the calling thread (inproc does, unless a delivery is under way
 * elsewhere).
 */
public interface Receiving {

    /** Stops delivery before the next message. */
    void pause();

    /** Resumes delivery. */
    void resume();
}
