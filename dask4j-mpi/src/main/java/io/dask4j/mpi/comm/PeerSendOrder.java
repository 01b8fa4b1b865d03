package io.dask4j.mpi.comm;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Keeps the MPI sends that this rank posts to one peer rank within a window that Open MPI can keep in order. Open
 * MPI 4.1's ob1 numbers the messages to a peer with a 16-bit sequence number; a send it holds back for lack of
 * transport resources can be overtaken by later sends to the same peer, and once 65536 of them have gone past it
 * the receiver matches a later message in its place (docs/status.md, Known gaps; {@code src/test/c/ordering_flood.c}).
 * Small sends complete as soon as MPI has buffered them, so the comms' credit ({@link CreditWindow}), which
 * counts unread messages per comm, does not bound that: this counts every send of the comms' writes to the peer since the last
 * moment at which none to it was incomplete (control envelopes and credits, a few per connection and one per
 * thousand messages read, are not counted). Only where the ABI needs it ({@code MpiAbi#needsPeerSendOrder}: a
 * window of 0 turns it off), and makes writers to the peer wait, once {@link MpiTransportOptions#peerSendWindow} have been posted, until
 * every send to it has completed. That over-counts (the true figure is the sends posted since the oldest
 * incomplete one), so the bound holds; its price is a drain of the sends to one peer every {@link MpiTransportOptions#peerSendWindow}
 * sends while some to it stay incomplete. A message takes its share while within the window, or whenever nothing
 * to the peer is incomplete, so that a message of any size passes.
 *
 * <p>Shared by every comm of this rank to one peer. {@link #tryTake} and {@link #fits} from writers, {@link
 * #give} from whichever thread completes a message; all lock-free (a waiting writer polls {@link #fits} while it
 * drives progress). Waiting writers register with {@link #waiting} and are unparked when
 * the sends to the peer have drained.
 */
final class PeerSendOrder {

    private static final long LOW = 0xFFFF_FFFFL;

    private final int window;
    /** Low 32 bits: sends to the peer not yet complete; high 32 bits: sends posted since none was incomplete. */
    private final AtomicLong state = new AtomicLong();
    private final ConcurrentLinkedQueue<Thread> waiters = new ConcurrentLinkedQueue<>();

    PeerSendOrder(int window) {
        this.window = window;
    }

    /** Takes a message's share of {@code sends} MPI sends if it fits; false if the writer must wait for a drain. */
    boolean tryTake(int sends) {
        while (true) {
            long s = state.get();
            if (!fits(s, sends)) {
                return false;
            }
            long incomplete = (s & LOW) + sends;
            long posted = (s >>> 32) + sends;
            if (state.compareAndSet(s, Math.min(posted, Integer.MAX_VALUE) << 32 | incomplete)) {
                return true;
            }
        }
    }

    /** Whether a message of {@code sends} MPI sends would be taken now. */
    boolean fits(int sends) {
        return fits(state.get(), sends);
    }

    private boolean fits(long s, int sends) {
        return window == 0 || (s & LOW) == 0 || (s >>> 32) + sends <= window;
    }

    /** Gives back a completed (or abandoned) message's share; the last one out starts a new window. */
    void give(int sends) {
        while (true) {
            long s = state.get();
            long incomplete = (s & LOW) - sends;
            long next = incomplete == 0 ? 0 : (s & ~LOW) | incomplete;
            if (state.compareAndSet(s, next)) {
                if (incomplete == 0) {
                    for (Thread t : waiters) {
                        LockSupport.unpark(t);
                    }
                }
                return;
            }
        }
    }

    /** Registers {@code thread} to be unparked at the next drain; {@link #done} removes it. */
    void waiting(Thread thread) {
        waiters.add(thread);
    }

    void done(Thread thread) {
        waiters.remove(thread);
    }

    int incompleteSends() {
        return (int) (state.get() & LOW);
    }

    int sendsInWindow() {
        return (int) (state.get() >>> 32);
    }
}
