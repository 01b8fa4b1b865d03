package io.dask4j.mpi.engine;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Keeps a message's envelope and frame chunks contiguous in the stream to their destination rank while
 * writers post single sends directly ({@link ProgressEngine#isendDirect}, outside the engine's lock): the
 * receiver takes a source's frames right after their envelope, and an envelope slipping in between (from
 * another comm's writer, or the same writer's next message) made it hold that envelope back and pause the
 * source with the frames still unmatched, for good. Posting a multi-part message takes the destination's
 * lock exclusively; direct sends share it, so they still run in parallel with each other.
 *
 * <p>Any thread. Only used when direct sends are on; without them everything posts under the engine's lock.
 */
final class StreamLocks {

    private final ConcurrentHashMap<Integer, ReentrantReadWriteLock> locks = new ConcurrentHashMap<>();

    ReentrantReadWriteLock of(int dest) {
        return locks.computeIfAbsent(dest, d -> new ReentrantReadWriteLock());
    }
}
