package io.dask4j.comm.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The checker's rules, on a clock the test moves: a stall is timed from the checker's first sight of it. */
class WriteStallCheckerTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final long SECOND_NS = TimeUnit.SECONDS.toNanos(1);

    /** A comm that only records what the checker does to it. */
    private static final class FakeComm implements WriteStallChecker.Watched {
        final WriteProgress progress = new WriteProgress();
        final List<Duration> stalls = new ArrayList<>();

        @Override
        public WriteProgress writeProgress() {
            return progress;
        }

        @Override
        public void onWriteStalled(Duration timeout) {
            stalls.add(timeout);
        }
    }

    private final WriteStallChecker checker = new WriteStallChecker(false);

    /** Checks once a second, as the timer does, from {@code fromS} to {@code toS}; returns how many it aborted. */
    private int checkEverySecond(long fromS, long toS) {
        int aborted = 0;
        for (long s = fromS; s <= toS; s++) {
            aborted += checker.check(s * SECOND_NS);
        }
        return aborted;
    }

    @Test
    void shouldAbortAWriteThatMadeNoProgressForTheTimeoutAndNotBefore() {
        FakeComm comm = new FakeComm();
        checker.watch(comm, TIMEOUT);
        comm.progress.started();
        assertThat(checkEverySecond(100, 129)).isZero();
        assertThat(checker.check(130 * SECOND_NS)).isOne();
        assertThat(comm.stalls).containsExactly(TIMEOUT);
    }

    @Test
    void shouldRestartTheClockOnEveryProgress() {
        FakeComm comm = new FakeComm();
        checker.watch(comm, TIMEOUT);
        comm.progress.started();
        for (long s = 0; s <= 300; s++) {
            if (s % 20 == 0) {
                comm.progress.advanced();
            }
            assertThat(checker.check(s * SECOND_NS)).as("at %d s", s).isZero();
        }
        assertThat(comm.stalls).isEmpty();
    }

    @Test
    void shouldLeaveACommAloneBetweenWrites() {
        FakeComm comm = new FakeComm();
        checker.watch(comm, TIMEOUT);
        comm.progress.started();
        comm.progress.finished();
        assertThat(checkEverySecond(0, 1000)).isZero();
        comm.progress.started();   // a new write, first seen at 1001 s
        assertThat(checkEverySecond(1001, 1030)).isZero();
        assertThat(checker.check(1031 * SECOND_NS)).isOne();
    }

    @Test
    void shouldNotCountAPauseOfTheWholeProcessAsAStall() {
        FakeComm comm = new FakeComm();
        checker.watch(comm, TIMEOUT);
        comm.progress.started();
        assertThat(checkEverySecond(0, 10)).isZero();
        assertThat(checker.check(100 * SECOND_NS)).as("the first check after a 90 s pause").isZero();
        assertThat(checkEverySecond(101, 129)).isZero();
        assertThat(checker.check(130 * SECOND_NS)).as("30 s after the pause, still no progress").isOne();
    }

    @Test
    void shouldForgetACommOnUnwatch() {
        FakeComm comm = new FakeComm();
        WriteStallChecker.Watch watch = checker.watch(comm, TIMEOUT);
        comm.progress.started();
        checker.check(0);
        checker.unwatch(watch);
        checker.unwatch(watch);
        assertThat(checkEverySecond(1, 100)).isZero();
        assertThat(checker.isWatching(comm)).isFalse();
    }

    @Test
    void shouldNotKeepACommDroppedWithoutCloseAlive() throws InterruptedException {
        checker.watch(new FakeComm(), TIMEOUT);
        long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (checker.watchedCount() > 0) {
            assertThat(deadlineNs - System.nanoTime()).as("the GC never took the dropped comm").isPositive();
            System.gc();
            Thread.sleep(10);
            checker.check(System.nanoTime());
        }
    }

    @Test
    void shouldDescribeTimeoutsForPeople() {
        assertThat(WriteStallChecker.describe(Duration.ofSeconds(30))).isEqualTo("30 s");
        assertThat(WriteStallChecker.describe(Duration.ofMillis(1500))).isEqualTo("1500 ms");
    }
}
