package io.dask4j.mpi.engine;

import io.dask4j.mpi.binding.Mpi;
import io.dask4j.mpi.binding.PointToPoint;
import io.dask4j.mpi.binding.MpiAbi;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * The receiving half of a progress pass: matches incoming messages with {@code MPI_Improbe(ANY_SOURCE,
 * ANY_TAG)} (while the router pauses some sources: the others one by one with {@code ANY_TAG}, the paused ones
 * with the router's {@link InboundRouter#unpausedTag} only) and receives each, small ones ({@code <= eagerBytes}) with a blocking {@code MPI_Mrecv} into
 * scratch memory (they have arrived already: {@code eagerBytes} is below the MPI library's eager limit, see
 * {@link EngineOptions#EAGER_BYTES}), larger ones into the buffer the {@link InboundRouter} names,
 * with {@code MPI_Imrecv} tracked in the {@link RequestTable} or, if the router asks, a blocking {@code
 * MPI_Mrecv}. Used only by the thread driving the engine.
 */
final class IncomingMatcher {

    private static final int PROBES_PER_PASS = 64;

    private final PointToPoint mpi;
    private final MpiAbi abi;
    private final long comm;
    private final int size;
    private final long byteType;
    private final int eagerBytes;
    private final InboundRouter router;
    private final RequestTable requests;
    private final EngineStats stats;
    private final Doorbells doorbells;
    private final MemorySegment flag;
    private final MemorySegment count;
    private final MemorySegment message;
    private final MemorySegment status;
    private final MemorySegment scratch;
    private final DropSink dropSink = new DropSink();

    IncomingMatcher(PointToPoint mpi, long comm, int eagerBytes, InboundRouter router, RequestTable requests, EngineStats stats,
                    Doorbells doorbells, Arena arena) {
        this.mpi = mpi;
        this.abi = mpi.abi();
        this.comm = comm;
        this.size = mpi.commSize(comm);
        this.byteType = abi.byteType();
        this.eagerBytes = eagerBytes;
        this.router = router;
        this.requests = requests;
        this.stats = stats;
        this.doorbells = doorbells;
        this.flag = arena.allocate(JAVA_INT);
        this.count = arena.allocate(JAVA_INT);
        this.message = arena.allocate(8, 8);
        this.status = arena.allocate(abi.statusBytes(), 8);
        this.scratch = arena.allocate(eagerBytes, 64);
    }

    /**
     * Matches and receives what has come (up to a bound per pass); returns how many messages. Sources the
     * router paused are probed only for its {@link InboundRouter#unpausedTag}; the others one by one.
     */
    int probe() {
        router.onPass();
        if (dropSink.holdsIdle()) {
            dropSink.trim(System.nanoTime());
        }
        if (!router.anyPaused()) {
            return probe(abi.anySource(), abi.anyTag());
        }
        int unpausedTag = router.unpausedTag();
        int work = 0;
        for (int source = 0; source < size; source++) {
            if (!router.isPaused(source)) {
                work += probe(source, abi.anyTag());
            } else if (unpausedTag >= 0) {
                work += probe(source, unpausedTag);
            }
        }
        return work;
    }

    private int probe(int from, int tag) {
        boolean anyTag = tag == abi.anyTag();
        int work = 0;
        for (int i = 0; i < PROBES_PER_PASS; i++) {
            mpi.check(mpi.improbe(from, tag, comm, flag, message, status), "MPI_Improbe");
            if (i == 0 && flag.get(JAVA_INT, 0) == 0) {
                // Open MPI's MPI_Improbe looks at its queue of arrived messages first and only then makes
                // progress, which may move a message out of shared memory into that queue and still answer
                // "nothing". An engine that slept after such an answer missed a message whose sender had rung
                // while it was awake (the doorbells' Dekker pair assumes one poll sees what came before it):
                // it waited for a timeout, 1-10 ms. A second call finds what the first one's progress queued.
                mpi.check(mpi.improbe(from, tag, comm, flag, message, status), "MPI_Improbe");
            }
            if (flag.get(JAVA_INT, 0) == 0) {
                break;
            }
            work++;
            int source = abi.statusSource(status);
            int matchedTag = abi.statusTag(status);
            doorbells.arrived(source);
            mpi.check(mpi.getCount(status, byteType, count), "MPI_Get_count");
            int bytes = count.get(JAVA_INT, 0);
            stats.received(bytes);
            if (bytes <= eagerBytes) {
                // A critical downcall: no safepoint until it returns, so only for messages that surely arrived.
                mpi.check(mpi.mrecv(scratch, bytes, byteType, message, abi.statusIgnore()), "MPI_Mrecv");
                router.onEager(source, matchedTag, scratch.asSlice(0, bytes));
            } else {
                receiveLarge(source, matchedTag, bytes);
            }
            if (anyTag && router.isPaused(source)) {
                break; // that message paused its source: what follows from it must wait
            }
        }
        return work;
    }

    private void receiveLarge(int source, int tag, int bytes) {
        InboundRouter.Target target = router.onLarge(source, tag, bytes);
        if (target == null) {
            // Dropped (unknown or closed comm): it must still be received, into reusable memory nobody reads.
            MemorySegment sink = dropSink.take(bytes);
            target = new InboundRouter.Target(sink.asSlice(0, bytes), rc -> {
                if (rc == Mpi.SUCCESS) {
                    dropSink.giveBack(sink, System.nanoTime());
                } // else the engine failed and MPI may still write it: left mapped, never reused
            }, false);
        }
        MemorySegment buffer = target.buffer();
        if (target.blocking()) {
            mpi.check(buffer.isNative()
                    ? mpi.mrecvBlocking(buffer, bytes, byteType, message, abi.statusIgnore())
                    : mpi.mrecvHeap(buffer, bytes, byteType, message, abi.statusIgnore()), "MPI_Mrecv");
            target.completion().onComplete(Mpi.SUCCESS);
            return;
        }
        mpi.check(mpi.imrecv(buffer, bytes, byteType, message, requests.nextSlot()), "MPI_Imrecv");
        requests.add(target.completion(), true, true);
    }
}
