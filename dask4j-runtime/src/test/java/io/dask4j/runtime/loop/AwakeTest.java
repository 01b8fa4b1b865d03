package io.dask4j.runtime.loop;

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

    @Test
    void negativeBudgetsAreRefused() {
        assertThatThrownBy(() -> new IdleOptions(Duration.ofNanos(-1), Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
    }
}
