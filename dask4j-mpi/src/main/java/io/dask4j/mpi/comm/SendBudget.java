package io.dask4j.mpi.comm;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Send-side back-pressure of one comm: the bytes its writes copied into pooled native memory and MPI has not
 * finished sending yet. A write returns once its frames are copied, so without this bound a writer whose
 * peer does not read would pile up copies (and pending MPI requests, which every engine pass tests) without
 * end. A write may take bytes while the total stays within {@link #LIMIT_BYTES}, or when nothing is out, so
 * that a single message of any size always passes.
 *
 * <p>{@link #tryTake} and {@link #fits} from the comm's writer thread; {@link #give} from whichever thread completes the send
 * (the engine's, or a writer's posting directly); {@link #outstanding} from any thread.
 */
final class SendBudget {

    /** How many copied bytes of one comm may be in flight before its writer waits; like the receiver's inbox. */
    static final long LIMIT_BYTES = Long.getLong("dask4j.mpi.sendBudgetMiB", 256) << 20;

    private final long limit;
    private final AtomicLong outstanding = new AtomicLong();

    SendBudget() {
        this(LIMIT_BYTES);
    }

    SendBudget(long limit) {
        this.limit = limit;
    }

    /** Takes {@code bytes} if they fit (or nothing is out); false if the writer must wait for completions. */
    boolean tryTake(long bytes) {
        while (true) {
            long now = outstanding.get();
            if (!fits(now, bytes)) {
                return false;
            }
            if (outstanding.compareAndSet(now, now + bytes)) {
                return true;
            }
        }
    }

    /** Whether {@code bytes} more would be taken now (a hint for waiting; {@link #tryTake} decides). */
    boolean fits(long bytes) {
        return fits(outstanding.get(), bytes);
    }

    private boolean fits(long now, long bytes) {
        return now == 0 || now + bytes <= limit;
    }

    /** Gives back the bytes of a finished (or abandoned) send. */
    void give(long bytes) {
        if (bytes != 0) {
            outstanding.addAndGet(-bytes);
        }
    }

    long outstanding() {
        return outstanding.get();
    }
}
