package io.dask4j.comm;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class RateLimitedLogTest {

    @Test
    void logsABurstPerWindowThenCountsWhatItLeavesOutUntilTheNextWindow() {
        AtomicLong clock = new AtomicLong(1_000_000_000L);
        RateLimitedLog log = new RateLimitedLog(LoggerFactory.getLogger(RateLimitedLogTest.class), 3,
                Duration.ofSeconds(10), clock::get);
        for (int i = 0; i < 3; i++) {
            assertThat(log.warn("probe {}", i)).isTrue();
        }
        for (int i = 0; i < 5; i++) {
            assertThat(log.warn("probe {}", i)).isFalse();
        }
        assertThat(log.suppressed()).isEqualTo(5);
        clock.addAndGet(Duration.ofSeconds(10).toNanos());
        assertThat(log.warn("probe again")).isTrue();
        assertThat(log.suppressed()).isZero();
    }
}
