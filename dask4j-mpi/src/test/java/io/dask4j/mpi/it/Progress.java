package io.dask4j.mpi.it;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * Waits of the test programs that fail when nothing moves, not when the machine is slow. {@link #join} waits for
 * a thread while a counter keeps rising and prints it as it rises (so that {@link MpiJob#runWhileProgressing} sees
 * the job live); {@link #until} waits for a state with a bounded deadline. Any thread.
 */
final class Progress {

    /** How long a counter may stand still before a wait gives up: generous, so that only a hang trips it. */
    static final Duration STALL = Duration.ofSeconds(60);
    private static final long PRINT_EVERY_NANOS = TimeUnit.SECONDS.toNanos(2);

    private Progress() {
    }

    /**
     * Waits for {@code thread} to end while {@code progress} keeps rising; fails if it stands still for {@link
     * #STALL}. Prints {@code label n} when the count moved, at most every 2 s.
     */
    static void join(Thread thread, LongSupplier progress, String label) throws InterruptedException {
        long seen = progress.getAsLong();
        long movedAt = System.nanoTime();
        long printedAt = movedAt;
        while (thread.isAlive()) {
            thread.join(100);
            long now = System.nanoTime();
            long count = progress.getAsLong();
            if (count != seen) {
                seen = count;
                movedAt = now;
                if (now - printedAt >= PRINT_EVERY_NANOS) {
                    System.out.println(label + " " + count);
                    System.out.flush();
                    printedAt = now;
                }
            } else {
                RankJob.check(!thread.isAlive() || now - movedAt < STALL.toNanos(),
                        label + ": stuck at " + count + " for " + STALL.toSeconds() + " s");
            }
        }
    }

    /** Whether {@code thread} is parked with {@code blocker} (as {@code LockSupport.parkNanos(blocker, ...)} shows). */
    static boolean parkedOn(Thread thread, Object blocker) {
        Thread.State state = thread.getState();
        return (state == Thread.State.TIMED_WAITING || state == Thread.State.WAITING) && LockSupport.getBlocker(thread) == blocker;
    }

    /** Polls {@code state} until it holds; fails with {@code what} if it does not within {@code deadline}. */
    static void until(BooleanSupplier state, Duration deadline, String what) {
        long start = System.nanoTime();
        while (!state.getAsBoolean()) {
            RankJob.check(System.nanoTime() - start < deadline.toNanos(), what + " (not within " + deadline.toSeconds() + " s)");
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }
}
