package io.dask4j.mpi.engine;

import io.dask4j.comm.stats.TransportGauges;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class EngineStatsTest {

    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private final AtomicInteger sends = new AtomicInteger();
    private final AtomicInteger receives = new AtomicInteger();
    private final EngineStats stats = new EngineStats(sends::get, receives::get, clock::get);

    @Test
    void publishesEveryGaugeTheDashboardReads() {
        assertThat(stats.get()).containsKeys("passes_total", "passes_per_second", "idle_fraction", "pending_sends",
                "pending_receives", "bytes_sent_total", "bytes_received_total");
    }

    @Test
    void doorbellGaugesCountSleepsAndTheWakeUpsThatEndedThemEarly() {
        stats.doorbellRanks(5);
        stats.sleptOnDoorbell(true);
        stats.sleptOnDoorbell(false);
        stats.sleptOnDoorbell(true);
        assertThat(stats.get()).containsEntry("doorbell_ranks", 5.0).containsEntry("doorbell_sleeps_total", 3.0)
                .containsEntry("doorbell_wakeups_total", 2.0).containsEntry("doorbell_unannounced_total", 0.0);
        stats.unannounced();
        assertThat(stats.get()).containsEntry("doorbell_unannounced_total", 1.0);
    }

    @Test
    void queueWaitGaugesSumTheWaitsAndKeepTheLongestOfTheIntervalOnly() {
        assertThat(stats.get()).containsEntry("queue_waits_total", 0.0).containsEntry("queue_wait_max_seconds", 0.0);
        stats.waitedInQueue(2_000_000L);
        stats.waitedInQueue(500_000L);
        Map<String, Double> first = stats.get();
        assertThat(first).containsEntry("queue_waits_total", 2.0);
        assertThat(first.get("queue_wait_seconds_total")).isCloseTo(0.0025, within(1e-12));
        assertThat(first.get("queue_wait_max_seconds")).isCloseTo(0.002, within(1e-12));
        stats.waitedInQueue(1_000_000L);
        Map<String, Double> second = stats.get();
        assertThat(second).containsEntry("queue_waits_total", 3.0);
        assertThat(second.get("queue_wait_seconds_total")).isCloseTo(0.0035, within(1e-12));
        assertThat(second.get("queue_wait_max_seconds")).isCloseTo(0.001, within(1e-12));
        assertThat(stats.get()).containsEntry("queue_wait_max_seconds", 0.0);
    }

    @Test
    void writerPostsAreCountedApartFromTheQueue() {
        assertThat(stats.get()).containsEntry("writer_posts_total", 0.0);
        stats.postedByWriter();
        stats.postedByWriter();
        assertThat(stats.get()).containsEntry("writer_posts_total", 2.0).containsEntry("queue_waits_total", 0.0);
    }

    @Test
    void passesPerSecondCountsOnlyTheIntervalSinceThePreviousSnapshot() {
        passes(500);
        clock.addAndGet(1_000_000_000L);
        assertThat(stats.get()).containsEntry("passes_total", 500.0).containsEntry("passes_per_second", 500.0);
        passes(100);
        clock.addAndGet(500_000_000L);
        assertThat(stats.get()).containsEntry("passes_total", 600.0).containsEntry("passes_per_second", 200.0);
    }

    @Test
    void idleFractionIsTheShareOfWallTimeTheEngineThreadIdled() {
        stats.idleFrom(clock.get());
        clock.addAndGet(250_000_000L);
        stats.idleUntil(clock.get());
        clock.addAndGet(750_000_000L);
        assertThat(stats.get().get("idle_fraction")).isCloseTo(0.25, within(1e-9));
    }

    @Test
    void anIdleSpellStillGoingOnCountsUpToNowAndIsNotCountedTwice() {
        stats.idleFrom(clock.get());
        clock.addAndGet(1_000_000_000L);
        assertThat(stats.get().get("idle_fraction")).isCloseTo(1.0, within(1e-9));
        clock.addAndGet(500_000_000L);
        stats.idleUntil(clock.get());
        clock.addAndGet(500_000_000L);
        assertThat(stats.get().get("idle_fraction")).isCloseTo(0.5, within(1e-9));
    }

    @Test
    void idlingAgainWithinASpellDoesNotRestartIt() {
        stats.idleFrom(clock.get());
        clock.addAndGet(300_000_000L);
        stats.idleFrom(clock.get());
        clock.addAndGet(300_000_000L);
        stats.idleUntil(clock.get());
        clock.addAndGet(400_000_000L);
        assertThat(stats.get().get("idle_fraction")).isCloseTo(0.6, within(1e-9));
    }

    @Test
    void pendingRequestsAndByteTotalsReflectTheEngine() {
        sends.set(3);
        receives.set(2);
        stats.sent(100);
        stats.sent(28);
        stats.received(4096);
        Map<String, Double> gauges = stats.get();
        assertThat(gauges).containsEntry("pending_sends", 3.0).containsEntry("pending_receives", 2.0)
                .containsEntry("bytes_sent_total", 128.0).containsEntry("bytes_received_total", 4096.0)
                .containsEntry("messages_sent_total", 2.0).containsEntry("messages_received_total", 1.0);
    }

    @Test
    void theGaugesReachTheProcessWideRegistryUnderTheEngineName() {
        stats.sent(8);
        TransportGauges.register(ProgressEngine.GAUGES, stats);
        try {
            assertThat(TransportGauges.snapshot().get("mpi_engine")).containsEntry("bytes_sent_total", 8.0);
        } finally {
            TransportGauges.unregister(ProgressEngine.GAUGES, stats);
        }
        assertThat(TransportGauges.snapshot()).doesNotContainKey("mpi_engine");
    }

    private void passes(int n) {
        for (int i = 0; i < n; i++) {
            stats.pass();
        }
    }
}
