package io.dask4j.mpi.engine;

import java.util.concurrent.TimeUnit;

/**
 * What the engine thread does after a pass: turns the work it found, what is outstanding, what was announced
 * and not yet seen, and the time since the last work into the next wait. Pure decisions (no clock, no
 * parking: callers pass {@code now} and carry the wait out), so every rule is unit-tested.
 *
 * <p><b>The backoff</b> (Agrona's BackoffIdleStrategy in miniature): after a pass with no work, spin {@link
 * EngineOptions#spins()} times, yield for {@link EngineOptions#yieldNanos()} (20x longer while threads are
 * parked waiting for a reply), then park from {@code minParkNanos} doubling to {@code maxParkNanos}; after
 * {@code deepIdleNanos} without work the cap rises to {@code deepParkNanos}. Work starts it over. How many cores
 * a rank has is in the options: a node with more ranks than cores neither spins nor yields ({@link #parksAtOnce}).
 *
 * <p><b>Sleeps on the doorbell</b> ({@link #sleepNanos}): a park becomes a sleep that a ring ends. It is long
 * ({@link EngineOptions#doorbellParkNanos()}, doubling while it runs out quietly, up to a second) only when
 * nothing can arrive unannounced: no request outstanding, every announced message seen, no source paused, every
 * rank able to ring, and settled ({@link EngineOptions#settleNanos()} since the last work). With only eager sends
 * outstanding and nobody waiting for them it is 1 ms doubling up to the long sleep (their data is on its way;
 * only buffers wait). Otherwise it is the backoff's park.
 *
 * <p>Used by the engine thread only.
 */
final class IdleStrategy {

    /** What to do next when a pass found nothing. */
    enum Step { SPIN, YIELD, PARK }

    /**
     * What is outstanding when the engine is about to sleep on its doorbell.
     *
     * @param requestsEmpty       no MPI request is outstanding
     * @param onlyEagerSends      every outstanding request is an eager send
     * @param allAnnouncedSeen    every message a sender announced (rang for) has been received
     * @param anyPaused           some source is paused (its messages wait unmatched)
     * @param sendWaiters         threads wait for this rank's sends to complete
     * @param lastWorkNanos       when the engine last found work (or was rung)
     */
    record Outstanding(boolean requestsEmpty, boolean onlyEagerSends, boolean allAnnouncedSeen, boolean anyPaused,
                       boolean sendWaiters, long lastWorkNanos) {
    }

    static final long INITIAL_SPELL_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** The longest doorbell sleep: each timed wake-up of an idle engine costs ~100 us of CPU on a busy small node. */
    static final long LONGEST_SLEEP_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** First sleep while only eager sends are outstanding. */
    static final long EAGER_SEND_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final EngineOptions options;
    private boolean everyRankRings;
    private long idlePasses;
    private long parkNanos;
    private long idleSinceNanos;
    private long quietSinceNanos;
    /** Smoothed length of the idle spells that ended in work (about eight spells); starts long. */
    private long typicalSpellNanos = INITIAL_SPELL_NANOS;
    private long longSleepNanos;
    private long eagerSendParkNanos = EAGER_SEND_PARK_NANOS;
    /** The last sleep was a long one that ran out: a message found next came without a ring. */
    private boolean longSleepTimedOut;
    private boolean lastSleepLong;

    /** @param everyRankRings whether every rank can ring this one's doorbell ({@link Doorbells#coversAll()}) */
    IdleStrategy(EngineOptions options, boolean everyRankRings, long now) {
        this.options = options;
        this.everyRankRings = everyRankRings;
        this.longSleepNanos = options.doorbellParkNanos();
        rearm(now);
        quietSinceNanos = now;
    }

    /** Whether every rank that sends to this one can ring it ({@link Doorbells#coversAll()}, which may change). */
    void everyRankRings(boolean rings) {
        everyRankRings = rings;
    }

    /** A pass found work, or a ring ended a sleep: the backoff and the long sleeps start over. */
    void onWork(long now) {
        if (idlePasses > 0) {
            long spell = Math.min(now - idleSinceNanos, INITIAL_SPELL_NANOS);
            typicalSpellNanos += (spell - typicalSpellNanos) / 8;
        }
        rearm(now);
        quietSinceNanos = now;
        longSleepNanos = options.doorbellParkNanos();
        eagerSendParkNanos = EAGER_SEND_PARK_NANOS;
    }

    /**
     * Starts the backoff again without restarting the quiet clock: another thread drove progress meanwhile, which
     * is not work (restarting the clock each time kept a rank with an idle platform reader out of its deep idle).
     */
    void rearm(long now) {
        idlePasses = 0;
        parkNanos = options.minParkNanos();
        idleSinceNanos = now;
    }

    /** Whether the first idle pass after work already parks (no spinning or yielding: an oversubscribed node). */
    boolean parksAtOnce() {
        return !options.pureSpin() && options.spins() == 0 && options.yieldNanos() == 0;
    }

    /** Whether messages lately came in quick succession (typical idle spell under {@code adaptiveYieldNanos}). */
    boolean messagesFrequent() {
        return typicalSpellNanos < options.adaptiveYieldNanos();
    }

    /** Whether the next {@link #next} parks; {@code waiters}: threads are parked waiting for messages. */
    boolean willPark(boolean waiters, long now) {
        return !options.pureSpin() && idlePasses >= options.spins() && now - idleSinceNanos >= yieldWindow(waiters);
    }

    /** The next step of the backoff after a pass without work (a {@link Step#PARK} lasts {@link #parkNanos}). */
    Step next(boolean waiters, long now) {
        long n = idlePasses++;
        if (options.pureSpin() || n < options.spins()) {
            return Step.SPIN;
        }
        return now - idleSinceNanos < yieldWindow(waiters) ? Step.YIELD : Step.PARK;
    }

    /** How long the next park lasts (before {@link #sleepNanos} stretches it). */
    long parkNanos() {
        return parkNanos;
    }

    /** A park ended without work or ring: the next one is twice as long, up to the cap (higher once deep idle). */
    void parkedQuietly(long now) {
        long cap = now - quietSinceNanos > options.deepIdleNanos() ? options.deepParkNanos() : options.maxParkNanos();
        parkNanos = Math.min(parkNanos << 1, cap);
    }

    /** How long a doorbell sleep in place of a park of {@code park} nanoseconds lasts, given what is outstanding. */
    long sleepNanos(long park, Outstanding o, long now) {
        boolean inbound = !o.anyPaused() && o.allAnnouncedSeen();
        boolean settled = now - o.lastWorkNanos() >= options.settleNanos();
        lastSleepLong = o.requestsEmpty() && inbound && settled && everyRankRings;
        if (lastSleepLong) {
            return Math.max(park, longSleepNanos);
        }
        if (inbound && o.onlyEagerSends() && !o.sendWaiters() && settled && everyRankRings) {
            long sleep = Math.max(park, eagerSendParkNanos);
            eagerSendParkNanos = Math.min(eagerSendParkNanos * 2, Math.max(EAGER_SEND_PARK_NANOS, options.doorbellParkNanos()));
            return sleep;
        }
        return park;
    }

    /** A doorbell sleep of {@code nanos} ended, {@code rung} or run out. */
    void slept(long nanos, boolean rung, long now) {
        longSleepTimedOut = !rung && lastSleepLong && nanos > options.maxParkNanos();
        if (rung) {
            longSleepNanos = options.doorbellParkNanos();
            eagerSendParkNanos = EAGER_SEND_PARK_NANOS;
        } else if (longSleepTimedOut) {
            longSleepNanos = Math.min(longSleepNanos * 2, Math.max(options.doorbellParkNanos(), LONGEST_SLEEP_NANOS));
        }
    }

    /** Whether the last sleep was long and ran out (then a message found next came unannounced). */
    boolean longSleepTimedOut() {
        return longSleepTimedOut;
    }

    private long yieldWindow(boolean waiters) {
        return waiters ? options.yieldNanos() * 20 : options.yieldNanos();
    }
}
