package io.dask4j.bench.mpi;

import io.dask4j.mpi.MpiRuntime;
import io.dask4j.mpi.binding.Mpi;
import io.dask4j.mpi.binding.MpiAbi;
import org.HdrHistogram.Histogram;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * A ping-pong between ranks 0 and 1 with raw MPI calls through the FFM binding (MPI_Irecv posted before
 * MPI_Isend, then MPI_Test until both complete; buffers allocated once), the baseline that shows what the
 * Comm layer costs. Runs holding the progress engine's lock, on a communicator of its own, so that nothing
 * else touches MPI meanwhile. Both ranks call it with the same sizes.
 */
final class RawPingPong {

    private static final int TAG = 77;

    private RawPingPong() {
    }

    static BenchResult run(MpiRuntime runtime, String impl, long size, int warmup, int rounds) {
        return runtime.engine().exclusive(() -> {
            Mpi mpi = runtime.mpi();
            MpiAbi abi = mpi.abi();
            long comm = mpi.commDup(runtime.comm());
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment send = arena.allocate(Math.max(size, 1), 4096);
                MemorySegment recv = arena.allocate(Math.max(size, 1), 4096);
                send.fill((byte) 1);
                recv.fill((byte) 0);
                MemorySegment requests = arena.allocate(abi.handleBytes() * 2, 8);
                MemorySegment flag = arena.allocate(JAVA_INT);
                int peer = runtime.rank() == 0 ? 1 : 0;
                int count = Math.toIntExact(size);
                Histogram rtt = new Histogram(1, 600_000_000_000L, 3);
                for (int i = 0; i < warmup + rounds; i++) {
                    long start = System.nanoTime();
                    if (runtime.rank() == 0) {
                        exchange(mpi, abi, send, recv, count, peer, comm, requests, flag, true);
                    } else {
                        exchange(mpi, abi, send, recv, count, peer, comm, requests, flag, false);
                    }
                    if (i >= warmup) {
                        rtt.recordValue(Math.max(1, System.nanoTime() - start));
                    }
                }
                return new BenchResult("mpi", impl, "binding", size, rounds, rtt.getValueAtPercentile(50) / 2e3,
                        rtt.getValueAtPercentile(99) / 2e3);
            } finally {
                mpi.commFree(comm);
            }
        });
    }

    /** Rank 0 sends then receives; rank 1 receives then sends. */
    private static void exchange(Mpi mpi, MpiAbi abi, MemorySegment send, MemorySegment recv, int count, int peer, long comm,
                                 MemorySegment requests, MemorySegment flag, boolean first) {
        MemorySegment recvRequest = requests.asSlice(0, abi.handleBytes());
        MemorySegment sendRequest = requests.asSlice(abi.handleBytes(), abi.handleBytes());
        mpi.check(mpi.irecv(recv, count, abi.byteType(), peer, TAG, comm, recvRequest), "MPI_Irecv");
        if (first) {
            mpi.check(mpi.isend(send, count, abi.byteType(), peer, TAG, comm, sendRequest), "MPI_Isend");
            spin(mpi, abi, sendRequest, flag);
            spin(mpi, abi, recvRequest, flag);
        } else {
            spin(mpi, abi, recvRequest, flag);
            mpi.check(mpi.isend(send, count, abi.byteType(), peer, TAG, comm, sendRequest), "MPI_Isend");
            spin(mpi, abi, sendRequest, flag);
        }
    }

    private static void spin(Mpi mpi, MpiAbi abi, MemorySegment request, MemorySegment flag) {
        do {
            mpi.check(mpi.test(request, flag, abi.statusIgnore()), "MPI_Test");
        } while (flag.get(JAVA_INT, 0) == 0);
    }
}
