package io.dask4j.mpi.engine;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Counters of a {@link ProgressEngine} and the gauges computed from them, published as {@code "mpi_engine"}
 * in {@link io.dask4j.comm.stats.TransportGauges}: {@code passes_total}, {@code passes_per_second} and
 * {@code idle_fraction} (the engine thread's time spent idling, spinning, yielding or parked, over wall
 * time) over the interval since the previous snapshot, {@code pending_sends}, {@code pending_receives},
 * {@code bytes_sent_total}, {@code bytes_received_total}, {@code messages_sent_total}, {@code
 * messages_received_total}, {@code doorbell_ranks}, {@code doorbell_sleeps_total}, {@code
 * doorbell_wakeups_total}, {@code doorbell_unannounced_total} (messages found only when a long doorbell
 * sleep ran out: no ring reached this engine; should stay near 0), and how long submitted work waited for a
 * pass to post it: {@code queue_waits_total}, {@code queue_wait_seconds_total} and {@code
 * queue_wait_max_seconds} (the longest since the previous snapshot). A writer's message waits there while the
 * engine thread wakes up, or for a core: on an oversubscribed node this is most of a message's latency. So a
 * writer that finds the engine's lock free posts its message itself: {@code writer_posts_total} counts those,
 * which never wait in the queue.
 *
 * <p>Counters are written by whoever drives the engine (one thread at a time, under its lock) with
 * release stores, which cost nothing more than plain stores on x86; {@link #get()} may be called from any
 * thread and is synchronized only against other snapshots.
 */
final class EngineStats implements Supplier<Map<String, Double>> {

    private final AtomicLong passes = new AtomicLong();
    private final AtomicLong idleNanos = new AtomicLong();
    private final AtomicLong bytesSent = new AtomicLong();
    private final AtomicLong bytesReceived = new AtomicLong();
    private final AtomicLong messagesSent = new AtomicLong();
    private final AtomicLong messagesReceived = new AtomicLong();
    private final AtomicLong doorbellSleeps = new AtomicLong();
    private final AtomicLong doorbellWakeUps = new AtomicLong();
    private final AtomicLong unannounced = new AtomicLong();
    private final AtomicLong queueWaits = new AtomicLong();
    private final AtomicLong writerPosts = new AtomicLong();
    private final AtomicLong queueWaitNanos = new AtomicLong();
    /** Longest queue wait since the previous snapshot; {@link #get()} resets it. */
    private final AtomicLong queueWaitMaxNanos = new AtomicLong();
    private volatile int doorbellRanks;
    private final IntSupplier pendingSends;
    private final IntSupplier pendingReceives;
    private final LongSupplier clock;
    /** When the engine thread began its current idle spell, 0 while it works. */
    private volatile long idleSinceNanos;
    private long lastSampleNanos;
    private long lastPasses;
    private long lastIdleNanos;

    EngineStats(IntSupplier pendingSends, IntSupplier pendingReceives, LongSupplier clock) {
        this.pendingSends = pendingSends;
        this.pendingReceives = pendingReceives;
        this.clock = clock;
        this.lastSampleNanos = clock.getAsLong();
    }

    void pass() {
        passes.setRelease(passes.getPlain() + 1);
    }

    void sent(long bytes) {
        bytesSent.setRelease(bytesSent.getPlain() + bytes);
        messagesSent.setRelease(messagesSent.getPlain() + 1);
    }

    void received(long bytes) {
        bytesReceived.setRelease(bytesReceived.getPlain() + bytes);
        messagesReceived.setRelease(messagesReceived.getPlain() + 1);
    }

    /**
     * Engine thread only: it idles (spins, yields, parks, or did a pass that found nothing) from {@code
     * nowNanos} on, unless an idle spell is already running.
     */
    void idleFrom(long nowNanos) {
        if (idleSinceNanos == 0) {
            idleSinceNanos = nowNanos;
        }
    }

    /** Engine thread only: it stops idling at {@code nowNanos}. */
    void idleUntil(long nowNanos) {
        long since = idleSinceNanos;
        if (since != 0) {
            idleNanos.setRelease(idleNanos.getPlain() + (nowNanos - since));
            idleSinceNanos = 0;
        }
    }

    long passes() {
        return passes.get();
    }

    /** How many ranks can ring this engine's doorbell (0: it polls). */
    void doorbellRanks(int ranks) {
        doorbellRanks = ranks;
    }

    /** The engine slept on its doorbell; {@code rung}: a sender or submitter woke it before the time was up. */
    void sleptOnDoorbell(boolean rung) {
        doorbellSleeps.incrementAndGet();
        if (rung) {
            doorbellWakeUps.incrementAndGet();
        }
    }

    /** Whoever drives the engine: a submitted piece of work waited {@code nanos} in the queue before its post. */
    void waitedInQueue(long nanos) {
        queueWaits.setRelease(queueWaits.getPlain() + 1);
        queueWaitNanos.setRelease(queueWaitNanos.getPlain() + nanos);
        queueWaitMaxNanos.accumulateAndGet(nanos, Math::max);
    }

    /** Under the engine's lock: a writer posted its message itself ({@link ProgressEngine#tryPost}). */
    void postedByWriter() {
        writerPosts.setRelease(writerPosts.getPlain() + 1);
    }

    /** A long doorbell sleep ran out and the next pass found a message: it came without a ring reaching us. */
    void unannounced() {
        unannounced.incrementAndGet();
    }

    @Override
    public synchronized Map<String, Double> get() {
        long now = clock.getAsLong();
        long totalPasses = passes.get();
        long since = idleSinceNanos;
        // An idle spell in progress counts up to now; when it ends, only the rest is added to the next sample.
        long idle = idleNanos.get() + (since != 0 ? Math.max(0, now - since) : 0);
        double wall = Math.max(1, now - lastSampleNanos);
        Map<String, Double> gauges = new LinkedHashMap<>();
        gauges.put("passes_total", (double) totalPasses);
        gauges.put("passes_per_second", (totalPasses - lastPasses) * 1e9 / wall);
        gauges.put("idle_fraction", Math.clamp((idle - lastIdleNanos) / wall, 0.0, 1.0));
        gauges.put("pending_sends", (double) pendingSends.getAsInt());
        gauges.put("pending_receives", (double) pendingReceives.getAsInt());
        gauges.put("bytes_sent_total", (double) bytesSent.get());
        gauges.put("bytes_received_total", (double) bytesReceived.get());
        gauges.put("messages_sent_total", (double) messagesSent.get());
        gauges.put("messages_received_total", (double) messagesReceived.get());
        gauges.put("doorbell_ranks", (double) doorbellRanks);
        gauges.put("doorbell_sleeps_total", (double) doorbellSleeps.get());
        gauges.put("doorbell_wakeups_total", (double) doorbellWakeUps.get());
        gauges.put("doorbell_unannounced_total", (double) unannounced.get());
        gauges.put("queue_waits_total", (double) queueWaits.get());
        gauges.put("queue_wait_seconds_total", queueWaitNanos.get() / 1e9);
        gauges.put("queue_wait_max_seconds", queueWaitMaxNanos.getAndSet(0) / 1e9);
        gauges.put("writer_posts_total", (double) writerPosts.get());
        lastSampleNanos = now;
        lastPasses = totalPasses;
        lastIdleNanos = idle;
        return gauges;
    }
}
