package io.dask4j.mpi.engine;

import java.lang.foreign.MemorySegment;

/**
 * Where the engine hands every message it matched with {@code MPI_Improbe(ANY_SOURCE, ANY_TAG)}. Called
 * on the thread driving the engine, under its lock, in the order MPI matched the messages (which, per
 * source, is the order they were sent). Implementations must be quick and must not block.
 */
public interface InboundRouter {

    /**
     * A small message already received into the engine's scratch buffer; {@code data} is only valid
     * during the call (copy what you keep).
     */
    void onEager(int source, int tag, MemorySegment data);

    /**
     * A larger message was matched: return the native segment of exactly {@code bytes} bytes to receive it
     * into and the completion to call when it has arrived, or {@code null} to drop the message.
     */
    Target onLarge(int source, int tag, long bytes);

    /**
     * Called at the start of every pass, before anything is matched: the router may route messages it held
     * back (see {@link #isPaused}) now that their receiver has room again.
     */
    default void onPass() {
    }

    /**
     * Whether messages from {@code source} must stay unmatched for now (receive-side back-pressure: the
     * router holds a message from it for a comm whose reader is behind, and everything after it from that
     * source must wait to keep the source's order). While any source is paused the engine probes the
     * others one by one instead of with MPI_ANY_SOURCE.
     */
    default boolean isPaused(int source) {
        return false;
    }

    /** Whether {@link #isPaused} holds for any source (checked every pass: must be cheap). */
    default boolean anyPaused() {
        return false;
    }

    /**
     * A tag whose messages are matched even from paused sources (MPI keeps order per tag, so they may overtake
     * what the pause holds back), or -1 for none: acknowledgements that let the paused source's writers go on
     * must not wait behind the pause.
     */
    default int unpausedTag() {
        return -1;
    }

    /**
     * Called at the end of every pass, after everything was matched and tested: the router hands complete
     * messages to push-mode receivers now (outside the matching loop, so a receiver may write from here).
     * Returns how many messages it delivered (work of the pass).
     */
    default int deliver() {
        return 0;
    }

    /** The engine broke (an MPI call failed); everything waiting must fail with {@code cause}. */
    void onEngineFailure(RuntimeException cause);

    /**
     * Where a large message goes. {@code blocking} asks for a blocking {@code MPI_Mrecv} now (the router
     * must see the content before it can route the next message from that source, or the buffer is a heap
     * array, which only a blocking call may fill); otherwise the message is received with {@code
     * MPI_Imrecv} into the native buffer and {@code completion} runs when it has arrived.
     */
    record Target(MemorySegment buffer, Completion completion, boolean blocking) {
    }
}
