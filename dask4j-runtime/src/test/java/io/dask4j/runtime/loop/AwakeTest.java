package io.dask4j.runtime.loop;

import io.dask4j.comm.CallerProgress;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AwakeTest {

    @Test
    void returnsTrueAsSoonAsTheConditionHolds() {
        AtomicInteger polls = new AtomicInteger();
        assertThat(Awake.poll(new IdleOptions(Duration.ofSeconds(10), Duration.ofSeconds(10)), () -> polls.incrementAndGet() == 3)).isTrue();
        assertThat(polls).hasValue(3);
    }

    @Test
    void givesUpOnceTheBudgetIsSpentAndWithoutBudgetLooksOnce() {
        assertThat(Awake.poll(new IdleOptions(Duration.ofNanos(1_000), Duration.ofNanos(1_000)), () -> false)).isFalse();
        AtomicInteger polls = new AtomicInteger();
        assertThat(Awake.poll(IdleOptions.parkAtOnce(), () -> polls.incrementAndGet() > 5)).isFalse();
        assertThat(polls).hasValue(1);
    }

    /** A transport that needs callers: counts passes and spells; its "message" arrives on the third pass. */
    private static final class FakeProgress implements CallerProgress {
        final AtomicInteger passes = new AtomicInteger();
        final AtomicInteger begun = new AtomicInteger();
        final AtomicInteger ended = new AtomicInteger();

        @Override
        public Driving begin() {
            begun.incrementAndGet();
            return new Driving() {
                @Override
                public boolean drive() {
                    passes.incrementAndGet();
                    return true;
                }

                @Override
                public void close() {
                    ended.incrementAndGet();
                }
            };
        }
    }

    @Test
    void aWaitThatDrivesATransportIsMadeReadyByItsOwnPassesAndEndsItsSpell() {
        FakeProgress progress = new FakeProgress();
        IdleOptions idle = new IdleOptions(Duration.ZERO, Duration.ZERO, Duration.ofSeconds(10));
        assertThat(Awake.poll(idle, () -> progress.passes.get() >= 3, progress)).isTrue();
        assertThat(progress.passes).hasValue(3);
        assertThat(progress.begun).hasValue(1);
        assertThat(progress.ended).hasValue(1);
    }

    @Test
    void aDriveBudgetRunsOutAndNoDriveBudgetOrNoTransportMeansSpinAndYieldOnly() {
        FakeProgress progress = new FakeProgress();
        assertThat(Awake.poll(new IdleOptions(Duration.ZERO, Duration.ZERO, Duration.ofNanos(50_000)), () -> false, progress)).isFalse();
        assertThat(progress.passes.get()).isPositive();
        assertThat(progress.ended).hasValue(1);

        FakeProgress unused = new FakeProgress();
        assertThat(Awake.poll(new IdleOptions(Duration.ofNanos(1_000), Duration.ofNanos(1_000)), () -> false, unused)).isFalse();
        assertThat(unused.begun).hasValue(0);
        AtomicInteger polls = new AtomicInteger();
        IdleOptions drive = new IdleOptions(Duration.ZERO, Duration.ZERO, Duration.ofSeconds(10));
        assertThat(Awake.poll(drive, () -> polls.incrementAndGet() > 1, CallerProgress.NONE)).as("no transport: one look").isFalse();
    }

    @Test
    void negativeBudgetsAreRefused() {
        assertThatThrownBy(() -> new IdleOptions(Duration.ofNanos(-1), Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
    }
}
