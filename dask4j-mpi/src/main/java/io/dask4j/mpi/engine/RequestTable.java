package io.dask4j.mpi.engine;

import io.dask4j.mpi.binding.Mpi;
import io.dask4j.mpi.binding.PointToPoint;
import io.dask4j.mpi.binding.MpiAbi;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * The outstanding MPI requests of a {@link ProgressEngine}: their handles packed in native memory as
 * {@code MPI_Testsome} wants them, with the {@link Completion} of each (which keeps the request's buffer
 * reachable until it completes), whether it is a receive, and whether it is a transfer larger than eager
 * (those move only while someone calls MPI, so the engine keeps driving while any is in flight), and whether
 * it is an eager send (its data is already on its way: see {@link #onlyEagerSends}).
 *
 * <p>Used only by the thread driving the engine (under its lock); {@link #busy()}, {@link #sends()} and
 * {@link #receives()} may be read from any thread (figures for waiters and gauges).
 */
final class RequestTable {

    private final PointToPoint mpi;
    private final MpiAbi abi;
    private final Arena arena;
    private final MemorySegment outCount;
    private MemorySegment requests;
    private MemorySegment indices;
    private Completion[] completions;
    private boolean[] large;
    private boolean[] receive;
    private boolean[] eager;
    private int active;
    private int eagerSends;
    private volatile int busy;
    private volatile int receives;

    RequestTable(PointToPoint mpi, Arena arena) {
        this.mpi = mpi;
        this.abi = mpi.abi();
        this.arena = arena;
        this.outCount = arena.allocate(JAVA_INT);
        this.completions = new Completion[64];
        this.large = new boolean[64];
        this.receive = new boolean[64];
        this.eager = new boolean[64];
        this.requests = arena.allocate(abi.handleBytes() * 64L, 8);
        this.indices = arena.allocate(JAVA_INT.byteSize() * 64, 4);
    }

    /** Requests of large transfers in flight: while any is, someone must keep calling MPI. */
    int busy() {
        return busy;
    }

    int sends() {
        return Math.max(0, active - receives);
    }

    int receives() {
        return receives;
    }

    boolean isEmpty() {
        return active == 0;
    }

    /**
     * Whether every outstanding request is an eager send. Such a send completes once the receiver has taken the
     * message and the sender's MPI has seen it do so (Open MPI's shared memory returns the fragment): traced on
     * 5 ranks / 2 cores, that took 0.2-20 ms, so an engine that polled for it with its short parks woke up about
     * a dozen times per message.
     */
    boolean onlyEagerSends() {
        return active > 0 && eagerSends == active;
    }

    /** The native slot the next request handle goes to (see {@link #add}). */
    MemorySegment nextSlot() {
        ensureCapacity();
        return requests.asSlice((long) active * abi.handleBytes(), abi.handleBytes());
    }

    /** Tracks the send just written into {@link #nextSlot()}: a large transfer, or an eager send. */
    void addSend(Completion completion, boolean isLarge) {
        if (isLarge) {
            add(completion, true, false);
        } else {
            addEagerSend(completion);
        }
    }

    /** Tracks the eager send just written into {@link #nextSlot()} (see {@link #onlyEagerSends}). */
    void addEagerSend(Completion completion) {
        eager[active] = true;
        eagerSends++;
        add(completion, false, false);
    }

    /** Tracks the request just written into {@link #nextSlot()}. */
    void add(Completion completion, boolean isLarge, boolean isReceive) {
        completions[active] = completion;
        large[active] = isLarge;
        receive[active] = isReceive;
        active++;
        if (isLarge) {
            busy++;
        }
        if (isReceive) {
            receives++;
        }
    }

    /** MPI_Testsome over every request; runs the completions of those done and returns how many were. */
    int testSome() {
        if (active == 0) {
            return 0;
        }
        mpi.check(mpi.testsome(active, requests, outCount, indices, abi.statusIgnore()), "MPI_Testsome");
        int done = outCount.get(JAVA_INT, 0);
        if (done <= 0) {
            return 0;
        }
        Completion[] finished = new Completion[done];
        for (int i = 0; i < done; i++) {
            int index = indices.getAtIndex(JAVA_INT, i);
            finished[i] = completions[index];
            forget(index);
        }
        compact();
        for (Completion c : finished) {
            c.onComplete(Mpi.SUCCESS);
        }
        return done;
    }

    /** The engine broke: every outstanding completion learns it with {@code errorCode}. */
    void failAll(int errorCode) {
        for (int i = 0; i < active; i++) {
            Completion c = completions[i];
            forget(i);
            c.onComplete(errorCode);
        }
        active = 0;
        busy = 0;
        receives = 0;
        eagerSends = 0;
    }

    private void forget(int index) {
        completions[index] = null;
        if (large[index]) {
            large[index] = false;
            busy--;
        }
        if (receive[index]) {
            receive[index] = false;
            receives--;
        }
        if (eager[index]) {
            eager[index] = false;
            eagerSends--;
        }
    }

    /** Moves the remaining requests to the front, in order (MPI_Testsome sets completed handles to null). */
    private void compact() {
        int kept = 0;
        for (int i = 0; i < active; i++) {
            if (completions[i] != null) {
                if (kept != i) {
                    abi.writeHandle(requests, kept, abi.readHandle(requests, i));
                    completions[kept] = completions[i];
                    completions[i] = null;
                    large[kept] = large[i];
                    large[i] = false;
                    receive[kept] = receive[i];
                    receive[i] = false;
                    eager[kept] = eager[i];
                    eager[i] = false;
                }
                kept++;
            }
        }
        active = kept;
    }

    private void ensureCapacity() {
        if (active < completions.length) {
            return;
        }
        int capacity = completions.length * 2;
        MemorySegment grown = arena.allocate(abi.handleBytes() * (long) capacity, 8);
        MemorySegment.copy(requests, 0, grown, 0, (long) abi.handleBytes() * active);
        requests = grown;
        indices = arena.allocate(JAVA_INT.byteSize() * capacity, 4);
        completions = Arrays.copyOf(completions, capacity);
        large = Arrays.copyOf(large, capacity);
        receive = Arrays.copyOf(receive, capacity);
        eager = Arrays.copyOf(eager, capacity);
    }
}
