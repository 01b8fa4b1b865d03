package io.dask4j.comm.tcp;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A process-wide pool of direct buffers through which large heap frames are copied to and from the
 * socket, in chunks. Reused because fresh pages are slow on the machines we run on (the first touch of a 4 KiB page costs 12-20 us), and bounded so that an idle process
 * holds little. Thread-safe.
 */
final class StagingBuffers {

    static final int CHUNK_BYTES = 4 << 20;
    private static final int MAX_POOLED = 8;
    private static final ConcurrentLinkedQueue<ByteBuffer> POOL = new ConcurrentLinkedQueue<>();
    private static final AtomicInteger POOLED = new AtomicInteger();

    private StagingBuffers() {
    }

    static ByteBuffer take() {
        ByteBuffer b = POOL.poll();
        if (b == null) {
            return ByteBuffer.allocateDirect(CHUNK_BYTES);
        }
        POOLED.decrementAndGet();
        return b.clear();
    }

    static void give(ByteBuffer b) {
        if (POOLED.incrementAndGet() <= MAX_POOLED) {
            POOL.offer(b);
        } else {
            POOLED.decrementAndGet();
        }
    }
}
