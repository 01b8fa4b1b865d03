package io.dask4j.comm;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The bytes a process lets its comms allocate for messages still arriving, shared by every comm that holds it (by
 * default all of the process's: {@link #process()}). A reader reserves a message's frame bytes, as its header
 * announces them, before allocating anything, and releases them once the message has arrived (from then on the
 * bytes are the receiver's, like any object it made) or failed. While the budget is spent, readers wait for others
 * to finish: the peers behind them are slowed down by TCP, and the process's memory does not grow. A message larger
 * than the whole budget could never be read and is refused.
 *
 * <p>So what peers can make this process allocate at once is bounded by the budget, whatever they announce, however
 * many they are; how long one message may hold its share is bounded by {@link CommLimits#messageStallTimeout()}.
 *
 * <p>Thread-safe. {@link #reserve} blocks the calling reader (virtual threads welcome); {@link #release} from any
 * thread. The uncontended path is one lock acquisition each way, per message with frames.
 */
public final class ReadBudget {

    /** Half the heap's maximum, but at least 256 MiB: frames mostly land on the heap. */
    public static final long DEFAULT_BYTES = Math.max(256L << 20, Runtime.getRuntime().maxMemory() / 2);
    private static final ReadBudget PROCESS = new ReadBudget(DEFAULT_BYTES);

    private final long capacityBytes;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition released = lock.newCondition();
    private long reservedBytes;
    private long peakBytes;
    private long waits;

    /** A budget of {@code capacityBytes} (positive) for the comms given it. */
    public ReadBudget(long capacityBytes) {
        if (capacityBytes <= 0) {
            throw new IllegalArgumentException("a read budget must be positive: " + capacityBytes);
        }
        this.capacityBytes = capacityBytes;
    }

    /** The process's default budget, {@link #DEFAULT_BYTES}. */
    public static ReadBudget process() {
        return PROCESS;
    }

    /**
     * Reserves {@code bytes} for a message from {@code peer}, waiting while others hold too much of the budget.
     *
     * @throws ProtocolException if {@code bytes} exceed the whole budget
     * @throws CommClosedException if interrupted while waiting
     */
    public void reserve(long bytes, Object peer) {
        if (bytes <= 0) {
            return;
        }
        if (bytes > capacityBytes) {
            throw new ProtocolException("a message of " + bytes + " bytes from " + peer + " exceeds this process's read "
                    + "budget of " + capacityBytes + " bytes (CommLimits.readBudget)");
        }
        lock.lock();
        try {
            boolean waited = false;
            while (capacityBytes - reservedBytes < bytes) {
                if (!waited) {
                    waited = true;
                    waits++;
                }
                released.await();
            }
            reservedBytes += bytes;
            peakBytes = Math.max(peakBytes, reservedBytes);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommClosedException("interrupted while waiting for read budget for a message from " + peer, e);
        } finally {
            lock.unlock();
        }
    }

    /** Gives back what {@link #reserve} took for a message that arrived or failed. */
    public void release(long bytes) {
        if (bytes <= 0) {
            return;
        }
        lock.lock();
        try {
            reservedBytes -= bytes;
            released.signalAll();
        } finally {
            lock.unlock();
        }
    }

    public long capacityBytes() {
        return capacityBytes;
    }

    /** Bytes reserved now, for messages under way. */
    public long reservedBytes() {
        return underLock(() -> reservedBytes);
    }

    /** The most ever reserved at once: never above {@link #capacityBytes()}. */
    public long peakBytes() {
        return underLock(() -> peakBytes);
    }

    /** How many reservations had to wait for others to finish. */
    public long waits() {
        return underLock(() -> waits);
    }

    private long underLock(java.util.function.LongSupplier read) {
        lock.lock();
        try {
            return read.getAsLong();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "ReadBudget[" + reservedBytes() + " of " + capacityBytes + " bytes]";
    }
}
