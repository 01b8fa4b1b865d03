package io.dask4j.mpi.comm;

import io.dask4j.comm.LimitedComm;

/**
 * The flow control of one comm of the mpi backend, both directions: the receiver grants credit in messages and
 * bytes, and a writer sends only within the credit its peer granted (as Aeron's receiver window or HTTP/2's
 * flow control). A reader that stops reading stops granting, so it stops its own comm's writers and nothing else.
 *
 * <p><b>Rules.</b> A message costs one message and {@link #cost} bytes (its frames plus a fixed 256). A writer may
 * send while {@code unacked messages < window messages} and either {@code unacked bytes + cost <= window bytes} or
 * nothing at all is unacked and the window has been opened by the handshake (so one message larger than the whole
 * window still passes, alone). The receiver checks the same rule on what it received and has not credited back:
 * since it credits only what it has received and its window only grows, a writer that keeps the rule never breaks
 * it there, and a peer that breaks it is aborted (a protocol error; nothing is allocated for the message).
 *
 * <p><b>Windows.</b> Until its handshake lifts the size limit ({@link #open}) a receiver's window is {@link
 * #INITIAL_MESSAGES} messages and {@link LimitedComm#HANDSHAKE_MAX_MESSAGE_BYTES} bytes (both ends know these);
 * then its configured window, which it announces in a CREDIT. A reader credits what it has read every {@link
 * MpiComm#CREDIT_BATCH} messages or a quarter of its byte window, and at once when a blocked writer asks for
 * credit ({@link #request}), so no writer waits for credit its reader will never send.
 *
 * <p><b>Threads.</b> Writer-side methods from the writer's thread and the engine's (credits arrive there);
 * receiver-side methods from the engine (arrivals) and the reader (consumption); all synchronized on this object,
 * each a few field updates.
 */
final class CreditWindow {

    /** Messages a receiver grants before its handshake opens its window: two credit batches. */
    static final int INITIAL_MESSAGES = 2 * MpiComm.CREDIT_BATCH;
    static final long INITIAL_BYTES = LimitedComm.HANDSHAKE_MAX_MESSAGE_BYTES;
    /** What a message costs a receiver besides its frames (header, envelope, bookkeeping). */
    static final long MESSAGE_OVERHEAD_BYTES = 256;

    /** A CREDIT to send: what was read since the last one, and the sender's receive window now. */
    record Credit(int messages, long bytes, int windowMessages, long windowBytes, boolean open) {
    }

    // writer side: what the peer granted, and what we sent that it has not credited back
    private int peerWindowMessages = INITIAL_MESSAGES;
    private long peerWindowBytes = INITIAL_BYTES;
    private boolean peerOpen;
    private long unackedMessages;
    private long unackedBytes;
    private boolean requested;

    // receiver side: our window, what we received and have not credited, what our reader read since the last credit
    private int windowMessages = INITIAL_MESSAGES;
    private long windowBytes = INITIAL_BYTES;
    private boolean open;
    private long outstandingMessages;
    private long outstandingBytes;
    private int readMessages;
    private long readBytes;
    private boolean peerWaits;

    /** What a message with {@code frameBytes} of frames costs the receiver's byte window. */
    static long cost(long frameBytes) {
        return frameBytes + MESSAGE_OVERHEAD_BYTES;
    }

    private static boolean fits(long messages, long bytes, int windowMessages, long windowBytes, boolean open, long cost) {
        return messages < windowMessages && (bytes + cost <= windowBytes || (bytes == 0 && open));
    }

    // ---- writer side ----

    /** Takes credit for a message of {@code cost} bytes if the peer's window has room; false if the writer must wait. */
    synchronized boolean tryTake(long cost) {
        if (!fits(unackedMessages, unackedBytes, peerWindowMessages, peerWindowBytes, peerOpen, cost)) {
            return false;
        }
        unackedMessages++;
        unackedBytes += cost;
        return true;
    }

    /** Gives back credit taken for a message that was never sent (the write failed before it was queued). */
    synchronized void untake(long cost) {
        unackedMessages--;
        unackedBytes -= cost;
    }

    /** Whether a message of {@code cost} would be taken now. */
    synchronized boolean fits(long cost) {
        return fits(unackedMessages, unackedBytes, peerWindowMessages, peerWindowBytes, peerOpen, cost);
    }

    /**
     * A blocked writer asks its reader for credit: true the first time since the last CREDIT arrived (then send a
     * request), false if one is already on its way.
     */
    synchronized boolean request() {
        if (requested) {
            return false;
        }
        requested = true;
        return true;
    }

    /** A CREDIT from the peer's reader arrived. Engine thread. */
    synchronized void credited(int messages, long bytes, int peerMessages, long peerBytes, boolean peerOpened) {
        unackedMessages = Math.max(0, unackedMessages - messages);
        unackedBytes = Math.max(0, unackedBytes - bytes);
        peerWindowMessages = Math.max(peerWindowMessages, peerMessages);
        peerWindowBytes = Math.max(peerWindowBytes, peerBytes);
        peerOpen |= peerOpened;
        requested = false;
    }

    // ---- receiver side ----

    /**
     * A DATA message of {@code cost} arrived: true (and counted) if it is within the window this end granted; false
     * if the peer broke the protocol. Engine thread.
     */
    synchronized boolean accept(long cost) {
        if (!fits(outstandingMessages, outstandingBytes, windowMessages, windowBytes, open, cost)) {
            return false;
        }
        outstandingMessages++;
        outstandingBytes += cost;
        return true;
    }

    /** The reader took a message of {@code cost}: the CREDIT to send now, or null. Reader's thread. */
    synchronized Credit read(long cost) {
        readMessages++;
        readBytes += cost;
        if (peerWaits || readMessages >= MpiComm.CREDIT_BATCH || readBytes >= windowBytes / 4) {
            return credit();
        }
        return null;
    }

    /** The peer's writer waits for credit: the CREDIT to send now if anything was read, else at the next read. */
    synchronized Credit peerWaits() {
        if (readMessages > 0) {
            return credit();
        }
        peerWaits = true;
        return null;
    }

    /** The handshake lifted the size limit: the window grows to its configured size, announced in a CREDIT. */
    synchronized Credit open(int messages, long bytes) {
        windowMessages = Math.max(windowMessages, messages);
        windowBytes = Math.max(windowBytes, bytes);
        open = true;
        return credit();
    }

    private Credit credit() {
        Credit c = new Credit(readMessages, readBytes, windowMessages, windowBytes, open);
        outstandingMessages -= readMessages;
        outstandingBytes -= readBytes;
        readMessages = 0;
        readBytes = 0;
        peerWaits = false;
        return c;
    }

    /** Whether this end's window is open (its handshake lifted the limit). */
    synchronized boolean isOpen() {
        return open;
    }

    /** Bytes this end has sent and its peer has not credited back (a gauge for tests). */
    synchronized long unackedBytes() {
        return unackedBytes;
    }
}
