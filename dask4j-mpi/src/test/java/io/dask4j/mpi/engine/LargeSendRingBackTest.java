package io.dask4j.mpi.engine;

import io.dask4j.mpi.binding.Futex;
import io.dask4j.mpi.binding.Mpi;
import io.dask4j.mpi.fake.FakeMpiWorld;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * On a node with more ranks than cores the sender of a large message sleeps on its doorbell until the receiver,
 * having taken the data, rings it back. The engines here may sleep for ten minutes unless rung, so a ring that is
 * missing (the receiver's, or the sender's announcement) fails the test by its timeout instead of passing slowly.
 */
@Timeout(60)
class LargeSendRingBackTest {

    private static final long TEN_MINUTES = TimeUnit.MINUTES.toNanos(10);
    /** Oversubscribed (no spins, no yields, no caller-runs), every cap ten minutes. */
    private static final EngineOptions SLEEPY = new EngineOptions(0, 0, 1_000, TEN_MINUTES, TEN_MINUTES, TEN_MINUTES,
            false, 0, EngineOptions.EAGER_BYTES, TEN_MINUTES, 0, 0);

    @Test
    void theReceiverOfALargeMessageRingsItsSleepingSenderSoTheSendCompletes() throws Exception {
        assumeTrue(Futex.SUPPORTED, "futexes need Linux on x86-64 or AArch64");
        FakeMpiWorld world = new FakeMpiWorld(2);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment table = arena.allocate(2 * 64, 64);
            Receiver inbound = new Receiver(arena);
            ProgressEngine sender = new ProgressEngine(world.rank(0), FakeMpiWorld.COMM, SLEEPY, new Receiver(arena),
                    new Doorbells(table, 0, new boolean[]{true, true}, true));
            ProgressEngine receiver = new ProgressEngine(world.rank(1), FakeMpiWorld.COMM, SLEEPY,
                    inbound, new Doorbells(table, 1, new boolean[]{true, true}, true));
            sender.start();
            receiver.start();
            try {
                for (int round = 0; round < 20; round++) {
                    MemorySegment large = arena.allocate(100_000);
                    large.fill((byte) round);
                    CompletableFuture<Integer> sent = new CompletableFuture<>();
                    CompletableFuture<byte[]> got = new CompletableFuture<>();
                    inbound.next = got;
                    sender.submit(e -> e.isend(large, 1, 3, sent::complete));
                    assertThat(got.get(20, TimeUnit.SECONDS)).isEqualTo(large.toArray(ValueLayout.JAVA_BYTE));
                    assertThat(sent.get(20, TimeUnit.SECONDS)).as("round %d: the send completed", round)
                            .isEqualTo(Mpi.SUCCESS);
                }
            } finally {
                sender.close();
                receiver.close();
            }
        }
    }

    /** Receives large messages into fresh memory and completes {@link #next} with their bytes. */
    private static final class Receiver implements InboundRouter {
        private final Arena arena;
        volatile CompletableFuture<byte[]> next;

        Receiver(Arena arena) {
            this.arena = arena;
        }

        @Override
        public void onEager(int source, int tag, MemorySegment data) {
            throw new AssertionError("only large messages are sent");
        }

        @Override
        public Target onLarge(int source, int tag, long bytes) {
            MemorySegment buffer = arena.allocate(bytes);
            return new Target(buffer, rc -> next.complete(buffer.toArray(ValueLayout.JAVA_BYTE)), false);
        }

        @Override
        public void onEngineFailure(RuntimeException cause) {
            CompletableFuture<byte[]> waiting = next;
            if (waiting != null) {
                waiting.completeExceptionally(cause);
            }
        }
    }
}
