package io.dask4j.mpi.binding;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class FutexTest {

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aSleeperIsWokenBeforeItsTimeoutWhenAnotherThreadWakesIt() throws Exception {
        assumeTrue(Futex.SUPPORTED, "futexes need Linux on x86-64 or AArch64");
        try (Arena arena = Arena.ofShared()) {
            MemorySegment word = arena.allocate(JAVA_INT);
            MemorySegment timespec = arena.allocate(16, 8);
            word.set(JAVA_INT, 0, 1);
            CountDownLatch started = new CountDownLatch(1);
            Thread sleeper = Thread.ofPlatform().start(() -> {
                started.countDown();
                while (word.get(JAVA_INT, 0) == 1) {
                    Futex.await(word, 1, TimeUnit.MINUTES.toNanos(10), timespec);
                }
            });
            started.await();
            word.set(JAVA_INT, 0, 0);
            Futex.wake(word, 1);
            sleeper.join(TimeUnit.SECONDS.toMillis(20)); // it would sleep 10 minutes if the wake were lost
            assertThat(sleeper.isAlive()).isFalse();
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void awaitReturnsAtOnceWhenTheWordNoLongerHoldsTheExpectedValue() {
        assumeTrue(Futex.SUPPORTED, "futexes need Linux on x86-64 or AArch64");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment word = arena.allocate(JAVA_INT);
            word.set(JAVA_INT, 0, 7);
            Futex.await(word, 1, TimeUnit.MINUTES.toNanos(10), arena.allocate(16, 8)); // returns: 7 != 1
            assertThat(word.get(JAVA_INT, 0)).isEqualTo(7);
        }
    }
}
