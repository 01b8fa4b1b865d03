package io.dask4j.runtime.loop;

import io.dask4j.comm.Receiving;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

@Timeout(30)
class EventLoopTest {

    private static EventLoop loop(int maxQueued, Runnable afterEvents) {
        return new EventLoop("test-loop", IdleOptions.defaults(), maxQueued, afterEvents, now -> now + TimeUnit.HOURS.toNanos(1));
    }

    @Test
    void aFreeLoopRunsTheEventOnTheCallersThreadAndFlushesBeforeReturning() {
        List<String> seen = Collections.synchronizedList(new ArrayList<>());
        try (EventLoop loop = loop(10, () -> seen.add("flush on " + Thread.currentThread().getName()))) {
            AtomicReference<Thread> ranOn = new AtomicReference<>();
            loop.execute(() -> {
                ranOn.set(Thread.currentThread());
                seen.add("event");
                assertThat(loop.inLoop()).isTrue();
            });
            assertThat(ranOn.get()).isSameAs(Thread.currentThread());
            assertThat(seen).containsExactly("event", "flush on " + Thread.currentThread().getName());
            assertThat(loop.inLoop()).isFalse();
        }
    }

    @Test
    void anEventThatExecutesAnotherQueuesItInsteadOfNesting() throws Exception {
        List<String> order = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch inner = new CountDownLatch(1);
        try (EventLoop loop = loop(10, () -> { })) {
            loop.execute(() -> {
                loop.execute(() -> {
                    order.add("inner");
                    inner.countDown();
                });
                order.add("outer done");
            });
            assertThat(inner.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(order).containsExactly("outer done", "inner");
        }
    }

    @Test
    void eventsFromManyThreadsRunOneAtATimeAndInEachThreadsOrder() throws Exception {
        int threads = 4;
        int perThread = 5_000;
        AtomicInteger running = new AtomicInteger();
        AtomicBoolean overlapped = new AtomicBoolean();
        int[] last = new int[threads];
        AtomicBoolean outOfOrder = new AtomicBoolean();
        CountDownLatch all = new CountDownLatch(threads * perThread);
        try (EventLoop loop = loop(1_000_000, () -> { })) {
            List<Thread> producers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int producer = t;
                producers.add(Thread.ofPlatform().start(() -> {
                    for (int i = 1; i <= perThread; i++) {
                        int seq = i;
                        loop.execute(() -> {
                            if (running.incrementAndGet() != 1) {
                                overlapped.set(true);
                            }
                            if (last[producer] != seq - 1) {   // plain array: the loop's hand-over orders it
                                outOfOrder.set(true);
                            }
                            last[producer] = seq;
                            running.decrementAndGet();
                            all.countDown();
                        }, null, seq % 2 == 0);
                    }
                }));
            }
            for (Thread p : producers) {
                p.join();
            }
            assertThat(all.await(20, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(overlapped).isFalse();
        assertThat(outOfOrder).isFalse();
        for (int t = 0; t < threads; t++) {
            assertThat(last[t]).isEqualTo(perThread);
        }
    }

    @Test
    void aPeerIsPausedPastTheCapAndResumedOnceTheQueueIsDownToHalf() throws Exception {
        CountDownLatch blocked = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch resumed = new CountDownLatch(1);
        AtomicInteger pauses = new AtomicInteger();
        Receiving peer = new Receiving() {
            @Override
            public void pause() {
                pauses.incrementAndGet();
            }

            @Override
            public void resume() {
                resumed.countDown();
            }
        };
        AtomicInteger ran = new AtomicInteger();
        try (EventLoop loop = loop(2, () -> { })) {
            loop.execute(() -> {
                blocked.countDown();
                await(release);
            }, null, false);   // the loop's own thread takes it and stays busy
            assertThat(blocked.await(10, TimeUnit.SECONDS)).isTrue();
            for (int i = 0; i < 2; i++) {
                loop.execute(ran::incrementAndGet, peer, true);
            }
            assertThat(pauses).hasValue(0);
            loop.execute(ran::incrementAndGet, peer, true);
            assertThat(pauses).hasValue(1);
            assertThat(loop.queued()).isEqualTo(3);
            assertThat(resumed.getCount()).isEqualTo(1);
            release.countDown();
            assertThat(resumed.await(10, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(ran).hasValue(3);
    }

    @Test
    void thePeriodicWorkRunsOnTheLoopsThreadWhenDue() throws Exception {
        CountDownLatch ticks = new CountDownLatch(3);
        AtomicReference<String> on = new AtomicReference<>();
        try (EventLoop loop = new EventLoop("tick-loop", IdleOptions.parkAtOnce(), 10, () -> { }, now -> {
            on.set(Thread.currentThread().getName());
            ticks.countDown();
            return now + TimeUnit.MILLISECONDS.toNanos(1);
        })) {
            assertThat(ticks.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(loop.inLoop()).isFalse();
        }
        assertThat(on.get()).isEqualTo("tick-loop");
    }

    @Test
    void aFailingEventDoesNotStopTheLoop() throws Exception {
        CountDownLatch after = new CountDownLatch(1);
        try (EventLoop loop = loop(10, () -> { })) {
            loop.execute(() -> {
                throw new IllegalStateException("a bug in one handler");
            }, null, false);
            loop.execute(after::countDown, null, false);
            assertThat(after.await(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
