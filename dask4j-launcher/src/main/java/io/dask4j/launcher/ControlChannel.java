package io.dask4j.launcher;

import io.dask4j.mpi.MpiRuntime;
import io.dask4j.mpi.binding.Mpi;
import io.dask4j.mpi.engine.Outbound;
import io.dask4j.mpi.engine.ProgressEngine;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * The launcher's own MPI traffic, kept apart from the {@code mpi://} comms: start-up collectives on the
 * job communicator while no comm needs progress yet, and the shutdown messages on a private duplicate of
 * it (so the progress engine's {@code MPI_Improbe(ANY_SOURCE, ANY_TAG)} never sees them). Point-to-point
 * control messages are one int each, sent as requests tracked by the progress engine and taken by polling
 * (a probe that the progress engine runs in one of its passes), so waiting for one never stops the engine
 * from serving comms.
 *
 * <p>Threads: the start-up methods ({@link #open}, {@link #allgather}, {@link #broadcast}) from the
 * rank's main thread only, and only before any comm needs progress (they hold the engine's lock while in
 * a blocking collective); {@link #send} and {@link #poll} from any platform thread.
 */
final class ControlChannel {
    /** Client rank to scheduler rank: the client is done; payload = the client's exit code. */
    static final int TAG_CLIENT_DONE = 1;
    /**
     * Payload of CLIENT_DONE and SHUTDOWN when the client's process is exiting on its own (System.exit in
     * main, or it vanished): the client rank will not come to the final barrier, so the others skip it.
     */
    static final int CLIENT_EXITED = -2;
    /** Scheduler rank to every other rank: shut down now; payload = the client's code or CLIENT_EXITED. */
    static final int TAG_SHUTDOWN = 2;

    /** How long {@link #poll} waits for the engine to run its probe (a pass takes microseconds). */
    static final long POLL_ANSWER_MILLIS = 2_000;

    private final MpiRuntime runtime;
    private final Mpi mpi;
    private final ProgressEngine engine;
    private final long control;
    /** Buffers of posted requests: kept reachable (and alive) until the process ends. */
    private final Arena arena = Arena.ofShared();
    private final ControlAnswers answers = new ControlAnswers();

    private ControlChannel(MpiRuntime runtime, long control) {
        this.runtime = runtime;
        this.mpi = runtime.mpi();
        this.engine = runtime.engine();
        this.control = control;
    }

    /** Duplicates the job communicator for control messages; collective over every rank. */
    static ControlChannel open(MpiRuntime runtime) {
        long dup = runtime.engine().exclusive(() -> {
            long c = runtime.mpi().commDup(runtime.comm());
            runtime.mpi().setErrorsReturn(c);
            return c;
        });
        return new ControlChannel(runtime, dup);
    }

    /** Every rank's {@code value} (at most {@code maxBytes} of UTF-8), by rank; collective. */
    List<String> allgather(String value, int maxBytes) {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment send = local.allocate(maxBytes);
            write(send, value);
            MemorySegment recv = local.allocate((long) maxBytes * runtime.size());
            engine.exclusive(() -> {
                mpi.allgather(send, recv, runtime.comm());
                return null;
            });
            List<String> out = new ArrayList<>();
            for (int r = 0; r < runtime.size(); r++) {
                out.add(recv.asSlice((long) r * maxBytes, maxBytes).getString(0, StandardCharsets.UTF_8));
            }
            return out;
        }
    }

    /** {@code root}'s {@code value} (at most {@code maxBytes} of UTF-8; ignored elsewhere) on every rank; collective. */
    String broadcast(String value, int root, int maxBytes) {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment buf = local.allocate(maxBytes);
            if (runtime.rank() == root) {
                write(buf, value);
            }
            engine.exclusive(() -> {
                mpi.bcast(buf, root, runtime.comm());
                return null;
            });
            return buf.getString(0, StandardCharsets.UTF_8);
        }
    }

    /**
     * Takes one int from {@code source} with {@code tag} if one has arrived, else empty (also when MPI is being
     * finalized, the engine has failed, or it did not answer within {@link #POLL_ANSWER_MILLIS}; what its probe
     * finds later is then kept for the next poll, see {@link ControlAnswers}). The probe
     * ({@code MPI_Improbe} + {@code MPI_Mrecv}) runs in a pass of the progress engine, never under the engine's
     * lock on this thread: on a node with more ranks than cores, a rank's main thread that took the lock for a
     * poll was often descheduled while holding it, and the engine then could not serve any comm for that long
     * (milliseconds, up to 90 ms seen). Polling leaves no receive request pending, so a rank ended by a signal
     * finalizes MPI cleanly.
     */
    OptionalInt poll(int source, int tag) {
        return poll(source, tag, true);
    }

    /**
     * {@link #poll}, but the probe waits for the engine's next pass instead of waking the engine: at once while
     * messages flow, within a second when the rank is idle (a sender of control messages rings the engine, and
     * that pass answers a waiting probe). For a rank's main thread that looks for a shutdown every 200 ms.
     */
    OptionalInt pollLazily(int source, int tag) {
        return poll(source, tag, false);
    }

    private OptionalInt poll(int source, int tag, boolean wakeEngine) {
        if (MpiRuntime.current() == null || engine.failure() != null) {
            return OptionalInt.empty(); // MPI is being finalized (the process is exiting) or unusable
        }
        OptionalInt early = answers.takeKept(source, tag);
        if (early.isPresent()) {
            return early;
        }
        ControlAnswers.Pending answer = answers.expect(source, tag);
        Outbound probe = e -> {
            try {
                answer.deliver(probe(source, tag));
            } catch (RuntimeException failure) {
                answer.fail(failure);
            }
        };
        if (wakeEngine) {
            engine.submit(probe);
        } else {
            engine.submitLazily(probe);
        }
        try {
            return answer.await(POLL_ANSWER_MILLIS);   // empty if the engine is closed or slow: the caller's deadline decides
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new LauncherException("control poll failed", e.getCause());
        }
    }

    /** One MPI_Improbe (+ MPI_Mrecv if something came); on the thread driving the engine. */
    private OptionalInt probe(int source, int tag) {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment flag = local.allocate(ValueLayout.JAVA_INT);
            MemorySegment message = local.allocate(8, 8);
            MemorySegment status = local.allocate(mpi.abi().statusBytes(), 8);
            MemorySegment buf = local.allocate(ValueLayout.JAVA_INT);
            mpi.check(mpi.improbe(source, tag, control, flag, message, status), "MPI_Improbe");
            if (flag.get(ValueLayout.JAVA_INT, 0) == 0) {
                return OptionalInt.empty();
            }
            mpi.check(mpi.mrecv(buf, 4, mpi.abi().byteType(), message, mpi.abi().statusIgnore()), "MPI_Mrecv");
            return OptionalInt.of(buf.get(ValueLayout.JAVA_INT, 0));
        }
    }

    /** Polls every {@code intervalMillis} until a message comes or {@code timeoutMillis} pass. */
    OptionalInt await(int source, int tag, long timeoutMillis, long intervalMillis) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000;
        while (true) {
            OptionalInt got = poll(source, tag);
            if (got.isPresent() || System.nanoTime() - deadline >= 0) {
                return got;
            }
            Thread.sleep(intervalMillis);
        }
    }

    /** Sends one int to {@code dest} with {@code tag}; the future completes once sent. */
    CompletableFuture<Integer> send(int dest, int tag, int value) {
        MemorySegment buf = arena.allocate(ValueLayout.JAVA_INT);
        buf.set(ValueLayout.JAVA_INT, 0, value);
        CompletableFuture<Integer> result = new CompletableFuture<>();
        engine.submit(e -> {
            int rc = e.track(slot -> mpi.isend(buf, 4, mpi.abi().byteType(), dest, tag, control, slot),
                    code -> complete(result, code, () -> value, "MPI_Isend to rank " + dest));
            if (rc != Mpi.SUCCESS) {
                complete(result, rc, () -> 0, "MPI_Isend to rank " + dest);
            } else {
                e.ring(dest); // its engine may sleep, with a lazy poll for this message waiting for a pass
            }
        });
        return result;
    }

    private void complete(CompletableFuture<Integer> result, int code, java.util.function.IntSupplier value, String what) {
        if (code == Mpi.SUCCESS) {
            result.complete(value.getAsInt());
        } else {
            result.completeExceptionally(new LauncherException(what + " failed: " + mpi.errorString(code)));
        }
    }

    private static void write(MemorySegment buf, String value) {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        if (bytes.length >= buf.byteSize()) {
            throw new LauncherException("launcher message too long (" + bytes.length + " bytes): " + value);
        }
        MemorySegment.copy(bytes, 0, buf, ValueLayout.JAVA_BYTE, 0, bytes.length);
        buf.set(ValueLayout.JAVA_BYTE, bytes.length, (byte) 0);
    }
}
