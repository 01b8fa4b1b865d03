package io.dask4j.comm.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The tcp timer's periodic checks go on after a run that failed, an allocation failure included. */
@Timeout(30)
class TcpTimerTest {

    @Test
    void aPeriodicTaskThatThrowsRunsAgain() throws InterruptedException {
        AtomicInteger runs = new AtomicInteger();
        CountDownLatch third = new CountDownLatch(1);
        ScheduledFuture<?> series = TcpTimer.every(1, TimeUnit.MILLISECONDS, () -> {
            switch (runs.incrementAndGet()) {
                case 1 -> throw new OutOfMemoryError("simulated: Java heap space");
                case 2 -> throw new IllegalStateException("simulated: a bug in one check");
                default -> third.countDown();
            }
        });
        try {
            assertThat(third.await(20, TimeUnit.SECONDS)).as("a third run after two failed ones").isTrue();
            assertThat(series.isDone()).isFalse();
        } finally {
            series.cancel(false);
        }
    }
}
