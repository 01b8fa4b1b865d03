package io.dask4j.comm.stats;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The traffic counters of one comm, obtained from {@link CommTraffic#open}. The hot path is two opaque
 * stores per message (no lock, no CAS, no allocation).
 *
 * <p><b>Threads.</b> Follows the comm's own contract: {@link #sent} is called by the comm's one writer at
 * a time and {@link #received} by its one reader at a time, so each counter has a single writer. Any
 * thread may read them (opaque loads) and call {@link #retire()}. The in and out counters sit on
 * different cache lines, so a reader and a writer thread do not slow each other down.
 */
public final class CommCounters {
    private static final VarHandle BYTES_OUT;
    private static final VarHandle MESSAGES_OUT;
    private static final VarHandle BYTES_IN;
    private static final VarHandle MESSAGES_IN;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            BYTES_OUT = l.findVarHandle(CommCounters.class, "bytesOut", long.class);
            MESSAGES_OUT = l.findVarHandle(CommCounters.class, "messagesOut", long.class);
            BYTES_IN = l.findVarHandle(CommCounters.class, "bytesIn", long.class);
            MESSAGES_IN = l.findVarHandle(CommCounters.class, "messagesIn", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final CommTraffic.Entry entry;
    private volatile boolean retired;
    private long bytesOut;
    private long messagesOut;
    // Padding: the writer's and the reader's counters are updated by different threads at once.
    @SuppressWarnings("unused")
    private long p1, p2, p3, p4, p5, p6, p7;
    private long bytesIn;
    private long messagesIn;

    CommCounters(CommTraffic.Entry entry) {
        this.entry = entry;
    }

    /** One message of {@code bytes} written. Writer thread only. */
    public void sent(long bytes) {
        BYTES_OUT.setOpaque(this, (long) BYTES_OUT.getOpaque(this) + bytes);
        MESSAGES_OUT.setOpaque(this, (long) MESSAGES_OUT.getOpaque(this) + 1);
    }

    /** One message of {@code bytes} read. Reader thread only. */
    public void received(long bytes) {
        BYTES_IN.setOpaque(this, (long) BYTES_IN.getOpaque(this) + bytes);
        MESSAGES_IN.setOpaque(this, (long) MESSAGES_IN.getOpaque(this) + 1);
    }

    /** The counts so far. Any thread. */
    public TrafficCounts counts() {
        return new TrafficCounts((long) BYTES_IN.getOpaque(this), (long) BYTES_OUT.getOpaque(this),
                (long) MESSAGES_IN.getOpaque(this), (long) MESSAGES_OUT.getOpaque(this));
    }

    /** The comm closed: its counts move into its peer's closed totals. Idempotent, any thread. */
    public void retire() {
        if (!retired) {
            CommTraffic.retire(this);
        }
    }

    boolean markRetired() {
        if (retired) {
            return false;
        }
        retired = true;
        return true;
    }
}
