package io.dask4j.mpi.engine;

import io.dask4j.mpi.engine.IdleStrategy.Outstanding;
import io.dask4j.mpi.engine.IdleStrategy.Step;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The engine thread's idle decisions, with a clock the test moves. */
class IdleStrategyTest {

    /** 3 spins, 100 us of yield, parks 1 us..1 ms, deep idle after 1 s at 20 ms, doorbell sleeps from 50 ms, settle 5 ms. */
    private static final EngineOptions SPARE_CORES = new EngineOptions(3, 100_000, 1_000, 1_000_000, 1_000_000_000L,
            20_000_000, false, 0, EngineOptions.EAGER_BYTES, 50_000_000, 5_000_000, 5_000_000);
    /** More ranks than cores: no spin, no yield. */
    private static final EngineOptions OVERSUBSCRIBED = new EngineOptions(0, 0, 1_000, 1_000_000, 1_000_000_000L,
            20_000_000, false, 0, EngineOptions.EAGER_BYTES, 50_000_000, 0, 5_000_000);
    private static final long MS = 1_000_000;

    @Test
    void afterWorkItSpinsThenYieldsForItsWindowThenParks() {
        IdleStrategy idle = new IdleStrategy(SPARE_CORES, true, 0);
        assertThat(idle.next(false, 0)).isEqualTo(Step.SPIN);
        assertThat(idle.next(false, 0)).isEqualTo(Step.SPIN);
        assertThat(idle.next(false, 0)).isEqualTo(Step.SPIN);
        assertThat(idle.next(false, 50_000)).isEqualTo(Step.YIELD);
        assertThat(idle.willPark(false, 99_999)).isFalse();
        assertThat(idle.willPark(false, 100_000)).isTrue();
        assertThat(idle.next(false, 100_000)).isEqualTo(Step.PARK);
    }

    @Test
    void parkedWaitersStretchTheYieldWindowTwentyfold() {
        IdleStrategy idle = new IdleStrategy(SPARE_CORES, true, 0);
        for (int i = 0; i < 3; i++) {
            idle.next(true, 0);
        }
        assertThat(idle.next(true, 1_999_999)).isEqualTo(Step.YIELD);
        assertThat(idle.next(true, 2_000_000)).isEqualTo(Step.PARK);
    }

    @Test
    void anOversubscribedNodeParksAtOnce() {
        IdleStrategy idle = new IdleStrategy(OVERSUBSCRIBED, true, 0);
        assertThat(idle.parksAtOnce()).isTrue();
        assertThat(idle.next(false, 0)).isEqualTo(Step.PARK);
        assertThat(new IdleStrategy(SPARE_CORES, true, 0).parksAtOnce()).isFalse();
    }

    @Test
    void quietParksDoubleUpToTheCapAndPastItOnlyOnceDeeplyIdle() {
        IdleStrategy idle = new IdleStrategy(OVERSUBSCRIBED, true, 0);
        assertThat(idle.parkNanos()).isEqualTo(1_000);
        for (int i = 0; i < 20; i++) {
            idle.parkedQuietly(10 * MS);
        }
        assertThat(idle.parkNanos()).isEqualTo(1_000_000); // maxPark
        for (int i = 0; i < 20; i++) {
            idle.parkedQuietly(2_000 * MS); // quiet for more than deepIdle (1 s)
        }
        assertThat(idle.parkNanos()).isEqualTo(20 * MS); // deepPark
        idle.onWork(2_001 * MS);
        assertThat(idle.parkNanos()).isEqualTo(1_000);
    }

    @Test
    void aSleepIsLongOnlyWhenNothingCanArriveUnannounced() {
        long now = 100 * MS;
        long settled = now - 10 * MS;
        IdleStrategy idle = new IdleStrategy(OVERSUBSCRIBED, true, 0);
        assertThat(idle.sleepNanos(1_000, quiet(settled), now)).isEqualTo(50 * MS);
        // an announced message not seen yet, a request outstanding, or a paused source: only the backoff's park
        assertThat(idle.sleepNanos(1_000, new Outstanding(true, false, false, false, false, settled), now)).isEqualTo(1_000);
        assertThat(idle.sleepNanos(1_000, new Outstanding(false, false, true, false, false, settled), now)).isEqualTo(1_000);
        assertThat(idle.sleepNanos(1_000, new Outstanding(true, false, true, true, false, settled), now)).isEqualTo(1_000);
        // a rank that cannot ring us could send without a ring
        assertThat(new IdleStrategy(OVERSUBSCRIBED, false, 0).sleepNanos(1_000, quiet(settled), now)).isEqualTo(1_000);
    }

    @Test
    void aSleepWaitsUntilTheEngineHasSettled() {
        IdleStrategy idle = new IdleStrategy(SPARE_CORES, true, 0); // settle: 5 ms
        long now = 100 * MS;
        assertThat(idle.sleepNanos(1_000, quiet(now - 4 * MS), now)).isEqualTo(1_000);
        assertThat(idle.sleepNanos(1_000, quiet(now - 5 * MS), now)).isEqualTo(50 * MS);
    }

    @Test
    void longSleepsThatRunOutDoubleUpToASecondAndARingStartsThemOver() {
        IdleStrategy idle = new IdleStrategy(OVERSUBSCRIBED, true, 0);
        long now = 100 * MS;
        long[] expected = {50, 100, 200, 400, 800, 1000, 1000};
        for (long ms : expected) {
            long sleep = idle.sleepNanos(1_000, quiet(0), now);
            assertThat(sleep).isEqualTo(ms * MS);
            idle.slept(sleep, false, now);
            assertThat(idle.longSleepTimedOut()).isTrue();
        }
        idle.slept(1_000 * MS, true, now);
        assertThat(idle.longSleepTimedOut()).isFalse();
        assertThat(idle.sleepNanos(1_000, quiet(0), now)).isEqualTo(50 * MS);
    }

    @Test
    void onlyEagerSendsOutstandingSleep1msDoublingUnlessSomeoneWaitsForThem() {
        IdleStrategy idle = new IdleStrategy(OVERSUBSCRIBED, true, 0);
        long now = 100 * MS;
        Outstanding eager = new Outstanding(false, true, true, false, false, 0);
        assertThat(idle.sleepNanos(1_000, eager, now)).isEqualTo(MS);
        assertThat(idle.sleepNanos(1_000, eager, now)).isEqualTo(2 * MS);
        assertThat(idle.sleepNanos(1_000, eager, now)).isEqualTo(4 * MS);
        assertThat(idle.sleepNanos(1_000, new Outstanding(false, true, true, false, true, 0), now)).isEqualTo(1_000);
        idle.onWork(now);
        assertThat(idle.sleepNanos(1_000, eager, now)).isEqualTo(MS);
    }

    @Test
    void messagesCountAsFrequentOnceIdleSpellsAreShort() {
        IdleStrategy idle = new IdleStrategy(OVERSUBSCRIBED, true, 0);
        assertThat(idle.messagesFrequent()).isFalse(); // starts assuming rare messages
        long now = 0;
        for (int i = 0; i < 40; i++) {
            idle.next(false, now);      // an idle spell begins...
            now += 100_000;
            idle.onWork(now);           // ...and ends in work 100 us later
        }
        assertThat(idle.messagesFrequent()).isTrue();
        for (int i = 0; i < 40; i++) {
            idle.next(false, now);
            now += 50 * MS;
            idle.onWork(now);
        }
        assertThat(idle.messagesFrequent()).isFalse();
    }

    private static Outstanding quiet(long lastWork) {
        return new Outstanding(true, false, true, false, false, lastWork);
    }
}
