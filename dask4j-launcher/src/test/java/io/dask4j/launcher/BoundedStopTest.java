package io.dask4j.launcher;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

class BoundedStopTest {

    @Test
    void aStopThatFinishesIsWaitedFor() {
        AtomicBoolean ran = new AtomicBoolean();
        assertThat(BoundedStop.run("quick stop", () -> ran.set(true), Duration.ofMinutes(1))).isTrue();
        assertThat(ran).isTrue();
    }

    @Test
    void aStopThatHangsIsLeftBehindAfterTheBound() throws InterruptedException {
        CountDownLatch never = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(1);
        boolean finished = BoundedStop.run("hanging stop", () -> {
            started.countDown();
            try {
                never.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, Duration.ofMillis(50));
        assertThat(finished).isFalse();
        started.await();
        never.countDown();
    }

    @Test
    void aStopThatThrowsStillCountsAsFinished() {
        assertThat(BoundedStop.run("failing stop", () -> {
            throw new IllegalStateException("boom");
        }, Duration.ofMinutes(1))).isTrue();
    }
}
