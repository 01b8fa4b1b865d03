package io.dask4j.mpi.engine;

import io.dask4j.mpi.binding.Futex;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The doorbell protocol between two "ranks" that share one table of cells in this JVM's memory (between
 * processes the table is a shared mapping under /dev/shm; the protocol is the same).
 */
class DoorbellsTest {

    private static final long TEN_MINUTES = TimeUnit.MINUTES.toNanos(10);

    @Test
    void aRankExpectsEveryMessageAnnouncedToItUntilItHasArrived() {
        try (Arena arena = Arena.ofShared()) {
            Doorbells[] ranks = node(arena, 3);
            assertThat(ranks[2].allAnnouncedArrived()).isTrue();

            ranks[0].announce(2);
            ranks[1].announce(2);
            assertThat(ranks[2].allAnnouncedArrived()).as("two announced, none arrived").isFalse();
            ranks[2].arrived(0);
            assertThat(ranks[2].allAnnouncedArrived()).as("one of two arrived").isFalse();
            ranks[2].arrived(1);
            assertThat(ranks[2].allAnnouncedArrived()).isTrue();
            assertThat(ranks[0].allAnnouncedArrived()).as("nothing was announced to rank 0").isTrue();
        }
    }

    @Test
    void aMessageFromARankThatCannotRingDoesNotCount() {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment table = arena.allocate(2 * 64, 64);
            // Rank 1 is on another node: it neither rings rank 0 nor is counted when its messages arrive.
            Doorbells rank0 = new Doorbells(table, 0, new boolean[]{true, false}, false);
            rank0.arrived(1);
            rank0.announce(1); // no effect: rank 1 cannot be rung
            assertThat(rank0.allAnnouncedArrived()).isTrue();
        }
    }

    @Test
    void aRankWhoseOtherNodesTalkOverTcpSleepsAsIfEveryRankRangUntilOneOfThemSendsOverMpi() {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment table = arena.allocate(3 * 64, 64);
            // Ranks 0 and 1 share a node; rank 2 is on another one.
            Doorbells rank0 = new Doorbells(table, 0, new boolean[]{true, true, false}, false);
            assertThat(rank0.coversAll()).as("rank 2 cannot ring").isFalse();

            rank0.expectOnlyNodeSenders();
            assertThat(rank0.coversAll()).as("only ranks of this node send over MPI").isTrue();
            rank0.arrived(1);
            assertThat(rank0.coversAll()).as("a message from this node keeps the declaration").isTrue();

            rank0.arrived(2);
            assertThat(rank0.coversAll()).as("rank 2 sent over MPI after all: poll for it again").isFalse();
        }
    }

    @Test
    void withoutDoorbellsTheDeclarationChangesNothing() {
        Doorbells.NONE.expectOnlyNodeSenders();
        assertThat(Doorbells.NONE.coversAll()).isFalse();
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void anAnnouncementWakesASleepingRankAtOnce() throws Exception {
        assumeTrue(Futex.SUPPORTED, "futexes need Linux on x86-64 or AArch64");
        try (Arena arena = Arena.ofShared()) {
            Doorbells[] ranks = node(arena, 2);
            CompletableFuture<Boolean> rung = sleepInBackground(ranks[1]);
            ranks[0].announce(1);
            assertThat(rung.get(20, TimeUnit.SECONDS)).as("the sleep ended by a ring, not a timeout").isTrue();
            assertThat(ranks[1].allAnnouncedArrived()).isFalse();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aRingWithoutAMessageWakesASleepingRankAndAnnouncesNothing() throws Exception {
        assumeTrue(Futex.SUPPORTED, "futexes need Linux on x86-64 or AArch64");
        try (Arena arena = Arena.ofShared()) {
            Doorbells[] ranks = node(arena, 2);
            ranks[0].ring(1); // awake: nothing to do, and nothing is counted
            CompletableFuture<Boolean> rung = sleepInBackground(ranks[1]);
            ranks[0].ring(1);
            assertThat(rung.get(20, TimeUnit.SECONDS)).as("the sleep ended by the ring, not a timeout").isTrue();
            assertThat(ranks[1].allAnnouncedArrived()).as("a control message is not one the engine must wait for").isTrue();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aRankThatSleepsWithoutARingTimesOutAndSaysSo() {
        assumeTrue(Futex.SUPPORTED, "futexes need Linux on x86-64 or AArch64");
        try (Arena arena = Arena.ofShared()) {
            Doorbells[] ranks = node(arena, 2);
            ranks[1].prepareSleep();
            assertThat(ranks[1].sleep(TimeUnit.MILLISECONDS.toNanos(20))).isFalse();
        }
    }

    @Test
    void anAnnouncementToAnAwakeRankStillCounts() {
        try (Arena arena = Arena.ofShared()) {
            Doorbells[] ranks = node(arena, 2);
            ranks[1].prepareSleep();
            ranks[1].cancelSleep();
            ranks[0].announce(1); // sees the rank awake: no futex wake, but the count goes up
            assertThat(ranks[1].allAnnouncedArrived()).isFalse();
            ranks[1].arrived(0);
            assertThat(ranks[1].allAnnouncedArrived()).isTrue();
        }
    }

    /** {@code size} ranks of one node sharing a table, each able to ring every other. */
    private static Doorbells[] node(Arena arena, int size) {
        MemorySegment table = arena.allocate(size * 64L, 64);
        Doorbells[] ranks = new Doorbells[size];
        for (int r = 0; r < size; r++) {
            boolean[] ringable = new boolean[size];
            java.util.Arrays.fill(ringable, true);
            ranks[r] = new Doorbells(table, r, ringable, true);
        }
        return ranks;
    }

    /**
     * Marks {@code rank} asleep and lets it sleep (up to ten minutes) on a thread of its own, as its engine does;
     * returns once that thread waits in the kernel's futex call, so that the ring must wake it there.
     */
    private static CompletableFuture<Boolean> sleepInBackground(Doorbells rank) {
        rank.prepareSleep();
        CompletableFuture<Integer> tid = new CompletableFuture<>();
        CompletableFuture<Boolean> rung = new CompletableFuture<>();
        Thread.ofPlatform().start(() -> {
            tid.complete(KernelThreads.currentTid());
            rung.complete(rank.sleep(TEN_MINUTES));
        });
        KernelThreads.awaitInFutexWait(tid.join(), "the doorbell sleeper");
        assertThat(rung).as("asleep until rung").isNotDone();
        return rung;
    }
}
