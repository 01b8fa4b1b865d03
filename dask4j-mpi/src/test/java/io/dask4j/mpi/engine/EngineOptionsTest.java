package io.dask4j.mpi.engine;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EngineOptionsTest {

    @Test
    void defaultsParkAtMostOneMillisecondWhileBusyAndLongerOnlyWhenQuiet() {
        EngineOptions defaults = EngineOptions.defaults();
        assertThat(defaults.maxParkNanos()).isEqualTo(1_000_000);
        assertThat(defaults.deepParkNanos()).isGreaterThan(defaults.maxParkNanos());
        assertThat(defaults.callerSpinNanos()).isPositive();
        assertThat(defaults.pureSpin()).isFalse();
    }

    @Test
    void aLowerParkCapLowersTheFirstParkToo() {
        EngineOptions capped = EngineOptions.defaults().withMaxPark(Duration.ofNanos(500));
        assertThat(capped.minParkNanos()).isEqualTo(500);
        assertThat(capped.maxParkNanos()).isEqualTo(500);
    }

    @Test
    void inconsistentOptionsAreRejectedWithTheirValues() {
        assertThatThrownBy(() -> EngineOptions.defaults().withDeepIdle(Duration.ofSeconds(1), Duration.ofNanos(10)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("deepParkNanos=10");
    }
}
