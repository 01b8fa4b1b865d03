package io.dask4j.bench.tasks;

import io.dask4j.comm.JvmFlags;

import java.util.List;

/**
 * The JVM options of the processes {@code bench tasks} starts (the ranks of its mpi jobs, the tcp backend's worker
 * processes), the same for every backend and protocol so that their figures compare. Constants; any thread.
 */
final class TasksJvm {

    /**
     * The serial collector (one core per process on a small machine leaves none for a parallel collector's
     * threads) with a young generation that holds a run's garbage. A workload of 100,000 tasks keeps every task's
     * state alive until the run ends, about a second: with the JVM's default young generation (a third of a
     * 384 MiB initial heap on a 24 GiB machine) those states outlived several collections, were copied and then
     * promoted, and the scheduler's rank spent 25 pauses and 8.8 s of a 35 s job collecting, against 3 pauses and
     * 0.5 s with this young generation (GC logs of {@code bench tasks --backend mpi --protocol tcp --client-rank 0},
     * map and tree, 2-core VM); map and tree then ran about 1.8x and 2.7x faster on that run. The heap is committed
     * up front, not touched, so the processes start as fast.
     */
    static final List<String> OPTIONS = List.of("-XX:+UseSerialGC", "-Xms2g", "-Xmn1g", JvmFlags.STACK);

    private TasksJvm() {
    }
}
