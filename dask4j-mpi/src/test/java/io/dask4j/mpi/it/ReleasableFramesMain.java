package io.dask4j.mpi.it;

import io.dask4j.comm.Address;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommClosedException;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.Comms;
import io.dask4j.comm.Frame;
import io.dask4j.comm.Listener;
import io.dask4j.comm.Message;
import io.dask4j.mpi.MpiRuntime;
import io.dask4j.mpi.engine.BufferPool;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.dask4j.mpi.it.RankJob.check;

/**
 * Two ranks; rank 1 echoes (write, then release), rank 0 checks what a large native frame becomes on mpi:
 * it arrives intact in pooled native memory as a releasable frame; after release its memory throws and it
 * cannot be written; released buffers are reused (the pool allocates nothing more over many round trips);
 * heap and small frames arrive as before (a double[] as a double[], not releasable); more than the budget
 * (32 MiB here) out in unreleased frames makes the next one arrive on the heap instead of waiting; and
 * unreleased frames dropped by the reader return to the pool through the GC. Prints {@code RANK r OK}.
 */
public final class ReleasableFramesMain {

    private static final int BIG = 8 << 20;
    private static final long WAIT_NANOS = 20_000_000_000L;

    private ReleasableFramesMain() {
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("dask4j.mpi.pooledFrameBudgetMiB", "32");
        MpiRuntime mpi = MpiRuntime.start();
        int rank = mpi.rank();
        CommOptions options = RankJob.options(rank);
        RankJob.run(mpi, () -> {
            Listener listener = Comms.listen(Address.mpi(rank), options, ReleasableFramesMain::echo);
            mpi.barrier();
            if (rank == 0) {
                try (Comm comm = Comms.connect(Address.mpi(1), options); Arena arena = Arena.ofConfined()) {
                    BufferPool pool = mpi.transport().bufferPool();
                    MemorySegment payload = arena.allocate(BIG, 4096);
                    arrivesIntactAndIsGoneAfterRelease(comm, payload);
                    releasedBuffersAreReused(comm, payload, pool);
                    heapAndSmallFramesArriveAsBefore(comm, arena);
                    beyondTheBudgetFramesArriveOnTheHeap(comm, payload, pool);
                    droppedFramesComeBackThroughTheGc(comm, payload, pool);
                }
            }
            mpi.barrier();
            listener.stop();
        });
    }

    private static void echo(Comm comm) {
        Thread.ofPlatform().name("echo").start(() -> {
            try {
                while (true) {
                    Message m = comm.read();
                    comm.write(m);
                    m.release();
                }
            } catch (CommClosedException done) {
                comm.abort();
            }
        });
    }

    private static Message roundTrip(Comm comm, MemorySegment payload, int seed) {
        fill(payload, seed);
        comm.write(Message.of("ping", Map.of("seed", (long) seed), List.of(Frame.of(payload))));
        return comm.read();
    }

    private static void arrivesIntactAndIsGoneAfterRelease(Comm comm, MemorySegment payload) {
        Message pong = roundTrip(comm, payload, 1);
        Frame frame = pong.frame(0);
        check(frame.isReleasable() && frame.segment().isNative(), "a large native frame should arrive pooled: " + frame);
        check(frame.segment().mismatch(payload) == -1, "the pooled frame should hold what was sent");
        pong.release();
        check(frame.isReleased(), "release should mark the frame");
        check(throwsIllegalState(() -> frame.segment().get(ValueLayout.JAVA_BYTE, 0)), "a released frame must not be readable");
        check(throwsIllegalState(() -> comm.write(pong)), "a released frame must not be written");
        Message after = roundTrip(comm, payload, 2);
        check(after.frame(0).segment().mismatch(payload) == -1, "the comm should keep working after a refused write");
        after.release();
        System.out.println("CHECK intact-and-gone-after-release OK");
    }

    private static void releasedBuffersAreReused(Comm comm, MemorySegment payload, BufferPool pool) {
        roundTrip(comm, payload, 3).release();
        long allocations = pool.allocations();
        long givenBack = pool.loansGivenBack();
        for (int i = 0; i < 20; i++) {
            Message pong = roundTrip(comm, payload, 10 + i);
            check(pong.frame(0).segment().mismatch(payload) == -1, "round " + i + " should arrive intact");
            pong.release();
        }
        check(pool.allocations() == allocations, "released buffers should be reused, but the pool allocated "
                + (pool.allocations() - allocations) + " more in 20 round trips");
        check(pool.loansGivenBack() - givenBack == 20, "20 releases should give 20 loans back, not "
                + (pool.loansGivenBack() - givenBack));
        check(pool.lentBytes() == 0, "nothing should be out on loan, but " + pool.lentBytes() + " bytes are");
        System.out.println("CHECK released-buffers-reused OK");
    }

    private static void heapAndSmallFramesArriveAsBefore(Comm comm, Arena arena) {
        double[] doubles = new double[1 << 20];
        doubles[12345] = 2.5;
        MemorySegment small = arena.allocate(100_000);
        small.fill((byte) 9);
        comm.write(Message.of("kinds", Map.of(), List.of(Frame.of(doubles), Frame.of(small))));
        Message pong = comm.read();
        Frame d = pong.frame(0);
        check(!d.isReleasable() && d.segment().heapBase().orElse(null) instanceof double[], "a double[] frame arrives as double[]");
        check(d.toDoubleArray()[12345] == 2.5, "the double[] frame should hold its values");
        check(!pong.frame(1).isReleasable() && pong.frame(1).segment().mismatch(small) == -1,
                "a native frame under the pooling threshold arrives as before: " + pong.frame(1));
        pong.release(); // a no-op for these frames
        check(d.toDoubleArray()[12345] == 2.5, "releasing plain frames changes nothing");
        System.out.println("CHECK heap-and-small-frames-unchanged OK");
    }

    private static void beyondTheBudgetFramesArriveOnTheHeap(Comm comm, MemorySegment payload, BufferPool pool) {
        List<Message> kept = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            kept.add(roundTrip(comm, payload, 40 + i));
            check(kept.get(i).frame(0).isReleasable(), "frame " + i + " is within the 32 MiB budget");
        }
        Message over = roundTrip(comm, payload, 44);
        check(!over.frame(0).isReleasable() && over.frame(0).segment().mismatch(payload) == -1,
                "over the budget a frame should arrive intact on the heap: " + over.frame(0));
        for (int i = 0; i < kept.size(); i++) {
            fill(payload, 40 + i);
            check(kept.get(i).frame(0).segment().mismatch(payload) == -1, "kept frame " + i + " must not be overwritten");
            kept.get(i).release();
        }
        check(pool.lentBytes() == 0, "all loans should be back, " + pool.lentBytes() + " bytes are out");
        Message again = roundTrip(comm, payload, 45);
        check(again.frame(0).isReleasable(), "after the releases frames are pooled again");
        again.release();
        System.out.println("CHECK budget-falls-back-to-heap OK");
    }

    private static void droppedFramesComeBackThroughTheGc(Comm comm, MemorySegment payload, BufferPool pool) throws Exception {
        long collected = pool.loansCollected();
        for (int i = 0; i < 3; i++) {
            check(roundTrip(comm, payload, 60 + i).frame(0).isReleasable(), "dropped frame " + i + " should be pooled");
        }
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (pool.loansCollected() - collected < 3 || pool.lentBytes() != 0) {
            check(System.nanoTime() - deadline < 0, "dropped frames did not come back: collected "
                    + (pool.loansCollected() - collected) + ", lent " + pool.lentBytes());
            System.gc();
            Thread.sleep(50); // paces the collections: the cleaner returns each loan on its own thread, a little later
        }
        System.out.println("CHECK dropped-frames-collected OK");
    }

    private static void fill(MemorySegment segment, int seed) {
        for (long i = 0; i < segment.byteSize(); i += 8) {
            segment.set(ValueLayout.JAVA_LONG_UNALIGNED, i, i * 0x9E3779B97F4A7C15L + seed);
        }
    }

    private static boolean throwsIllegalState(Runnable action) {
        try {
            action.run();
            return false;
        } catch (IllegalStateException expected) {
            return true;
        }
    }
}
