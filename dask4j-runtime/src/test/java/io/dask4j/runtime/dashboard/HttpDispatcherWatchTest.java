package io.dask4j.runtime.dashboard;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** The watch on an HTTP server's accepting thread: a death restarts it, an end after close does not. */
@Timeout(30)
class HttpDispatcherWatchTest {

    /** A thread that ends with {@code error} (not printed), as the JDK's dispatcher ends on an Error. */
    private static Thread dying(CountDownLatch go, Error error) {
        return Thread.ofPlatform().name(HttpDispatcherWatch.DISPATCHER_NAME).uncaughtExceptionHandler((t, e) -> { })
                .start(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    throw error;
                });
    }

    @Test
    void aDispatcherKilledByAnOutOfMemoryErrorIsRestarted() throws InterruptedException {
        CountDownLatch go = new CountDownLatch(1);
        CountDownLatch restarted = new CountDownLatch(1);
        Thread watch = HttpDispatcherWatch.watch(dying(go, new OutOfMemoryError("Java heap space (simulated)")),
                "a test server", () -> false, restarted::countDown);
        assertThat(restarted.getCount()).as("not before it dies").isEqualTo(1);
        go.countDown();
        assertThat(restarted.await(20, TimeUnit.SECONDS)).isTrue();
        watch.join();
    }

    @Test
    void aDispatcherThatEndsBecauseTheServerWasClosedIsLeftEnded() throws InterruptedException {
        CountDownLatch go = new CountDownLatch(1);
        AtomicInteger restarts = new AtomicInteger();
        Thread watch = HttpDispatcherWatch.watch(dying(go, new AssertionError("ended by close")), "a closed server", () -> true,
                restarts::incrementAndGet);
        go.countDown();
        watch.join();
        assertThat(restarts).hasValue(0);
    }
}
