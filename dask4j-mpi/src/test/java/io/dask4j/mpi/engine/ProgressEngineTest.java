package io.dask4j.mpi.engine;

import io.dask4j.mpi.binding.Mpi;
import io.dask4j.mpi.fake.FakeMpiWorld;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link ProgressEngine} over the in-process fake MPI: what a pass posts, matches, receives, and how it fails. */
@Timeout(30)
class ProgressEngineTest {

    private static final EngineOptions OPTIONS = new EngineOptions(50, 50_000, 1_000, 200_000, 1_000_000_000L,
            1_000_000, false, 0, EngineOptions.EAGER_BYTES, 50_000_000, 0, 5_000_000);
    private static final int TAG = 7;
    private static final int PRIORITY_TAG = 9;

    private final FakeMpiWorld world = new FakeMpiWorld(2);
    private final Router[] routers = {new Router(), new Router()};
    private final ProgressEngine[] engines = new ProgressEngine[2];
    private final Arena arena = Arena.ofShared();

    ProgressEngineTest() {
        for (int r = 0; r < 2; r++) {
            engines[r] = new ProgressEngine(world.rank(r), FakeMpiWorld.COMM, OPTIONS, routers[r]);
            engines[r].start();
        }
    }

    @AfterEach
    void close() {
        for (ProgressEngine e : engines) {
            e.close();
        }
    }

    @Test
    void smallMessagesArriveThroughOnEagerAndLargeOnesIntoTheRoutersBuffer() throws Exception {
        CompletableFuture<Integer> largeSent = new CompletableFuture<>();
        MemorySegment small = bytes(100, 1);
        MemorySegment large = bytes(100_000, 2);
        engines[0].submit(e -> {
            e.isend(small, 1, TAG, rc -> { });
            e.isend(large, 1, TAG, largeSent::complete);
        });
        Received first = routers[1].next();
        assertThat(first.tag).isEqualTo(TAG);
        assertThat(first.data).isEqualTo(small.toArray(ValueLayout.JAVA_BYTE));
        Received second = routers[1].next();
        assertThat(second.large).isTrue();
        assertThat(second.data).isEqualTo(large.toArray(ValueLayout.JAVA_BYTE));
        // A send above the fake's eager size completes only once received (rendezvous): its completion ran.
        assertThat(largeSent.get(10, TimeUnit.SECONDS)).isEqualTo(Mpi.SUCCESS);
    }

    @Test
    void aPausedSourceStaysUnmatchedExceptForTheUnpausedTag() throws Exception {
        routers[1].pausedSource = 0;
        engines[0].submit(e -> {
            e.isend(bytes(8, 3), 1, TAG, rc -> { });
            e.isend(bytes(8, 4), 1, PRIORITY_TAG, rc -> { });
        });
        Received credit = routers[1].next();
        assertThat(credit.tag).isEqualTo(PRIORITY_TAG);
        assertThat(world.unmatched(1)).isEqualTo(1); // the earlier message waits in MPI while its source is paused
        routers[1].pausedSource = -1;
        engines[1].wakeUp();
        assertThat(routers[1].next().tag).isEqualTo(TAG);
    }

    @Test
    void aFailedMpiCallFailsTheEngineAndEveryOutstandingRequest() throws Exception {
        CompletableFuture<Integer> sent = new CompletableFuture<>();
        world.failNext(0, "MPI_Testsome", FakeMpiWorld.ERR_OTHER);
        // Large and never received (rank 1 pauses rank 0): the request stays outstanding until the failure.
        routers[1].pausedSource = 0;
        engines[0].submit(e -> e.isend(bytes(100_000, 5), 1, TAG, sent::complete));
        assertThat(sent.get(10, TimeUnit.SECONDS)).isEqualTo(FakeMpiWorld.ERR_OTHER);
        assertThat(routers[0].failure.get(10, TimeUnit.SECONDS)).hasMessageContaining("MPI_Testsome")
                .hasMessageContaining("fake MPI error 15");
        assertThat(engines[0].failure()).isNotNull();
        assertThat(engines[0].isRunning()).isFalse();
    }

    @Test
    void aWriterPostsItsOwnMessageWhenTheLockIsFree() throws Exception {
        long before = world.sends();
        boolean posted = engines[0].tryPost(e -> e.isend(bytes(8, 6), 1, TAG, rc -> { }));
        if (posted) {
            // posted on this thread, synchronously: the send is in MPI before tryPost returns
            assertThat(world.sends()).isEqualTo(before + 1);
        } else {
            engines[0].submit(e -> e.isend(bytes(8, 6), 1, TAG, rc -> { }));
        }
        assertThat(routers[1].next().tag).isEqualTo(TAG);
    }

    @Test
    void whatTheRouterDeliversAtTheEndOfAPassCountsAsWork() throws Exception {
        routers[1].deliveries = 3;
        CompletableFuture<Void> delivered = routers[1].delivered;
        engines[1].wakeUp();
        delivered.get(10, TimeUnit.SECONDS);
        assertThat(routers[1].deliverCalls).isGreaterThan(0);
    }

    private MemorySegment bytes(int n, int seed) {
        MemorySegment s = arena.allocate(n);
        for (int i = 0; i < n; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) (i * seed + seed));
        }
        return s;
    }

    private record Received(int source, int tag, byte[] data, boolean large) {
    }

    /** Records what the engine routes; pauses one source on request. */
    private final class Router implements InboundRouter {
        final LinkedBlockingQueue<Received> received = new LinkedBlockingQueue<>();
        final CompletableFuture<RuntimeException> failure = new CompletableFuture<>();
        final CompletableFuture<Void> delivered = new CompletableFuture<>();
        volatile int pausedSource = -1;
        volatile int deliveries;
        volatile int deliverCalls;

        /** The thread that ran each eager receive's handler, in order. */
        final LinkedBlockingQueue<Thread> eagerThreads = new LinkedBlockingQueue<>();

        @Override
        public void onEager(int source, int tag, MemorySegment data) {
            eagerThreads.add(Thread.currentThread());
            received.add(new Received(source, tag, data.toArray(ValueLayout.JAVA_BYTE), false));
        }

        @Override
        public Target onLarge(int source, int tag, long bytes) {
            MemorySegment buffer = arena.allocate(bytes);
            return new Target(buffer, rc -> received.add(new Received(source, tag,
                    buffer.toArray(ValueLayout.JAVA_BYTE), true)), false);
        }

        @Override
        public boolean isPaused(int source) {
            return source == pausedSource;
        }

        @Override
        public boolean anyPaused() {
            return pausedSource >= 0;
        }

        @Override
        public int unpausedTag() {
            return PRIORITY_TAG;
        }

        @Override
        public int deliver() {
            deliverCalls++;
            int n = deliveries;
            deliveries = 0;
            if (n > 0) {
                delivered.complete(null);
            }
            return n;
        }

        @Override
        public void onEngineFailure(RuntimeException cause) {
            failure.complete(cause);
        }

        Received next() throws InterruptedException {
            Received r = received.poll(10, TimeUnit.SECONDS);
            if (r == null) {
                throw new AssertionError("nothing received within 10 s");
            }
            return r;
        }
    }

    /**
     * A thread waiting for messages drives the engine in a spell: what arrives is received and handled on that
     * thread (the engine thread parks while anyone drives; at most the pass it was in when the spell began can
     * take one), and once the spell ends the engine thread receives again.
     */
    @Test
    void aDrivingSpellReceivesOnTheWaitingThreadAndTheEngineThreadTakesOverAfterIt() throws Exception {
        int messages = 50;
        Thread me = Thread.currentThread();
        try (io.dask4j.comm.CallerProgress.Driving spell = engines[1].drivingSpell()) {
            assertThat(spell).isNotSameAs(io.dask4j.comm.CallerProgress.Driving.IDLE);
            for (int i = 0; i < messages; i++) {
                byte value = (byte) i;
                engines[0].submit(e -> e.isend(bytes(8, value), 1, TAG, rc -> { }));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (routers[1].received.size() <= i && System.nanoTime() < deadline) {
                    spell.drive();
                }
            }
        }
        assertThat(routers[1].received).hasSize(messages);
        assertThat(routers[1].eagerThreads.stream().filter(t -> t == me).count()).isGreaterThanOrEqualTo(messages - 1);

        routers[1].received.clear();
        routers[1].eagerThreads.clear();
        engines[0].submit(e -> e.isend(bytes(8, 99), 1, TAG, rc -> { }));
        assertThat(routers[1].next().data()[0]).isEqualTo((byte) 99);
        assertThat(routers[1].eagerThreads.take()).isNotSameAs(me);
    }

    @Test
    void aVirtualThreadNeverDrives() throws Exception {
        CompletableFuture<io.dask4j.comm.CallerProgress.Driving> spell = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> spell.complete(engines[1].drivingSpell())).join();
        assertThat(spell.get()).isSameAs(io.dask4j.comm.CallerProgress.Driving.IDLE);
    }

    static void awaitTrue(BooleanSupplier condition) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not reached within 10 s");
            }
            Thread.yield();
        }
    }
}
