package io.dask4j.mpi.engine;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.IntConsumer;

/**
 * The ranks sent to since the last {@link #drain}: a bit per rank. The progress engine rings their
 * doorbells again before it sleeps ({@link ProgressEngine}): a receiver whose last poll before sleeping
 * did not report a message its sender had rung for while it was awake would otherwise wait for its
 * timeout. Seen with Open MPI 4.1, whose {@code MPI_Improbe} checks its queue before making progress (the
 * matcher now probes twice for that, see {@code IncomingMatcher}); the second ring is the safety net for
 * any other way an MPI may deliver a message later than {@code MPI_Isend} returns.
 *
 * <p>{@link #mark} may be called from any thread (direct sends post from writer threads); {@link #drain}
 * by the engine thread. A rank marked while a drain runs is either drained now or at the next drain.
 */
final class RecentPeers {
    private final AtomicLongArray words;

    RecentPeers(int ranks) {
        this.words = new AtomicLongArray(Math.max(1, (ranks + 63) >>> 6));
    }

    /** Notes that a message was posted to {@code rank}. */
    void mark(int rank) {
        int word = rank >>> 6;
        long bit = 1L << (rank & 63);
        // A plain read first: most sends go to a rank already marked, and a failed CAS loop costs more.
        if ((words.get(word) & bit) == 0) {
            words.getAndUpdate(word, w -> w | bit);
        }
    }

    /** Hands every marked rank to {@code ring} and clears them. */
    void drain(IntConsumer ring) {
        for (int word = 0; word < words.length(); word++) {
            if (words.get(word) == 0) {
                continue;
            }
            long bits = words.getAndSet(word, 0);
            while (bits != 0) {
                int low = Long.numberOfTrailingZeros(bits);
                ring.accept((word << 6) + low);
                bits &= bits - 1;
            }
        }
    }
}
