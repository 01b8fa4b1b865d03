package io.dask4j.mpi.engine;

import io.dask4j.mpi.binding.Futex;
import io.dask4j.mpi.binding.Mpi;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * Wake-ups between the progress engines of ranks that share a node, so that an idle engine can sleep
 * instead of polling MPI and still see a message from a neighbour at once.
 *
 * <p><b>Why.</b> MPI has no way to block until a message arrives without spinning a core, so an idle
 * engine polls: each wake-up costs ~25 us of CPU on a small VM, and a message that arrives while it sleeps
 * waits for the next one. With a 1 ms cap, five ranks on two cores spent a tenth of a core polling and still
 * added ~0.5 ms per hop (the seed workload of issue #6). A
 * doorbell removes both: before it
 * sleeps, an engine marks its cell SLEEPING; a rank that sends to it afterwards sees the mark and wakes it
 * with a futex on the shared cell, the way a socket wakes an epoll loop.
 *
 * <p><b>Protocol.</b> One 64-byte cell per rank in a file under {@code /dev/shm} that every rank of the node
 * maps; a cell holds its rank's state and a count of the messages announced to it. Sender: post the message
 * (MPI_Isend puts it in the peer's shared-memory queue), add one to the peer's count (an atomic add, a full
 * fence), and if the peer's cell is SLEEPING, swing it to AWAKE and futex-wake. Sleeper: set SLEEPING, poll
 * MPI and the submit queue once more, then futex-wait while the cell is SLEEPING, but only for a short park
 * while fewer messages have arrived from ringable ranks than were announced ({@link #allAnnouncedArrived}).
 * The fences make it a Dekker pair: either the sleeper's last look sees the message (received, or announced
 * and not yet received, so it keeps polling) or the sender sees the mark and wakes it. So a message that MPI
 * shows later than its {@code MPI_Isend} returned (a full queue; Open MPI's {@code MPI_Improbe} may queue a
 * message and still answer "nothing") is found by the next short poll, not at the end of a long sleep, and a
 * sender need not ring again after its send completes or before it sleeps (it used to, which woke a receiver
 * that had already gone back to sleep about once a message: half of an engine's wake-ups in the seed workload).
 *
 * <p><b>Threads.</b> {@link #setUp} is collective over the job communicator and runs before the engine
 * starts. {@link #announce}, {@link #ring} and {@link #ringSelf} may be called from any thread; {@link #arrived}, {@link
 * #allAnnouncedArrived}, {@link #prepareSleep}, {@link #sleep} and {@link #cancelSleep} only from the thread
 * driving the engine.
 */
public final class Doorbells {

    /** No doorbells: engines poll at their park cap (one rank, another OS, or turned off). */
    public static final Doorbells NONE = new Doorbells(null, -1, new boolean[0], false);

    private static final int AWAKE = 0;
    private static final int SLEEPING = 1;
    private static final long CELL_BYTES = 64;
    /** Where in a cell its rank writes {@code rank + 1} at set-up: a peer that reads it shares the mapping. */
    private static final long MARK_OFFSET = 4;
    /** Where in a cell senders count the messages they posted to its rank. */
    private static final long ANNOUNCED_OFFSET = 8;
    private static final VarHandle STATE = ValueLayout.JAVA_INT.varHandle();
    private static final VarHandle COUNT = ValueLayout.JAVA_LONG.varHandle();
    private static final Path SHM = Path.of("/dev/shm");

    private final MemorySegment table;
    private final int self;
    private final boolean[] ringable;
    private final boolean coversAll;
    /**
     * Set when only this node's ranks send to this one over the engine's communicator (the others use tcp), so
     * that it sleeps as if every rank could ring; cleared for good when a rank that cannot ring sends after all.
     */
    private volatile boolean onlyNodeSenders;
    private final MemorySegment timespec;
    /** Messages received from ringable ranks, to compare with the announced count; driving thread only. */
    private long arrived;

    /** Cells in {@code table} (64 bytes a rank); {@link #setUp} maps them, tests may use plain memory. */
    Doorbells(MemorySegment table, int self, boolean[] ringable, boolean coversAll) {
        this.table = table;
        this.self = self;
        this.ringable = ringable;
        this.coversAll = coversAll;
        this.timespec = table == null ? null : Arena.global().allocate(16, 8);
    }

    /**
     * Collective over {@code comm} (every rank must call it, before the engine starts): agrees on a file name,
     * finds which ranks share this node, and maps the node's cells. Ranks that cannot map them (no {@code
     * /dev/shm}, {@code enabled} false as {@code -Ddask4j.mpi.doorbells=false} makes it, no futex) are neither rung
     * nor ring; the others still do.
     */
    public static Doorbells setUp(Mpi mpi, long comm, int rank, int size, boolean enabled) {
        if (size < 2) {
            return NONE;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment token = arena.allocate(16);
            if (rank == 0) {
                byte[] random = new byte[16];
                new SecureRandom().nextBytes(random);
                token.copyFrom(MemorySegment.ofArray(random));
            }
            mpi.bcast(token, 0, comm);
            MemorySegment hosts = arena.allocate(8L * size, 8);
            mpi.allgather(arena.allocateFrom(ValueLayout.JAVA_LONG, nodeId()), hosts, comm);
            Path file = SHM.resolve("dask4j-doorbells-" + HexFormat.of().formatHex(token.toArray(ValueLayout.JAVA_BYTE)));
            MemorySegment table = map(file, size, enabled);
            if (table != null) {
                STATE.setVolatile(table, rank * CELL_BYTES + MARK_OFFSET, rank + 1);
            }
            MemorySegment ok = arena.allocate(4L * size, 4);
            mpi.allgather(arena.allocateFrom(ValueLayout.JAVA_INT, table == null ? 0 : 1), ok, comm);
            mpi.barrier(comm); // every rank of the node has mapped the file and marked its cell: the name may go
            deleteQuietly(file);
            if (table == null) {
                return NONE;
            }
            long me = hosts.getAtIndex(ValueLayout.JAVA_LONG, rank);
            boolean[] ringable = new boolean[size];
            boolean all = true;
            for (int r = 0; r < size; r++) {
                // Same node, mapped, and its mark visible here (containers of one host may not share /dev/shm).
                ringable[r] = hosts.getAtIndex(ValueLayout.JAVA_LONG, r) == me && ok.getAtIndex(ValueLayout.JAVA_INT, r) == 1
                        && (int) STATE.getVolatile(table, r * CELL_BYTES + MARK_OFFSET) == r + 1;
                all &= ringable[r];
            }
            return new Doorbells(table, rank, ringable, all);
        }
    }

    /** How many ranks can ring this one, for diagnostics. */
    public int ringableRanks() {
        int n = 0;
        for (boolean r : ringable) {
            n += r ? 1 : 0;
        }
        return n;
    }

    /**
     * Whether {@code rank}'s engine is marked asleep on its doorbell right now (a sender would ring it); false
     * for a rank this one cannot ring. For diagnostics and tests that wait for an engine to fall asleep. Any thread.
     */
    public boolean asleep(int rank) {
        return table != null && ringable[rank] && (int) STATE.getVolatile(table, rank * CELL_BYTES) == SLEEPING;
    }

    /** Whether this engine may sleep on its doorbell (else it parks). */
    boolean enabled() {
        return table != null;
    }

    /**
     * Whether every rank that sends to this one can ring it: every rank of the job, or, after {@link
     * #expectOnlyNodeSenders}, the ranks of this node. Then an idle engine need not poll for their messages.
     */
    boolean coversAll() {
        return coversAll || onlyNodeSenders;
    }

    /**
     * Declares that ranks on other nodes do not send to this one over the engine's communicator (a job whose
     * ranks on different nodes talk over tcp). Without it such a rank's engine cannot sleep long, since a message
     * from another node rings no doorbell, and it polls about a thousand times a second while a job runs (measured
     * on two virtual nodes: 1,000-2,000 wake-ups a second and 4-8% of a core per rank, against about 1% under tcp).
     * A wrong declaration costs latency, never a message: the first message from a rank that cannot ring ends it
     * ({@link #arrived}), and until then such a message waits at most for the long sleep's timeout. Any thread.
     */
    void expectOnlyNodeSenders() {
        if (table != null && !coversAll) {
            onlyNodeSenders = true;
        }
    }

    /**
     * Announces a message just posted to {@code rank} and wakes its engine if it sleeps on its doorbell; call
     * once per MPI message, after {@code MPI_Isend} succeeded. Costs an atomic add and a load when the engine
     * is awake. Any thread.
     */
    public void announce(int rank) {
        if (table == null || !ringable[rank]) {
            return;
        }
        long offset = rank * CELL_BYTES;
        // The atomic add is a full fence: the count is visible before we read the mark (Dekker).
        COUNT.getAndAdd(table, offset + ANNOUNCED_OFFSET, 1L);
        wakeIfSleeping(offset);
    }

    /**
     * Wakes {@code rank}'s engine if it sleeps on its doorbell, announcing nothing: for a message outside the
     * engines' communicator (the launcher's control messages), which the woken engine's pass looks for only if
     * asked to ({@link ProgressEngine#submitLazily}). Any thread.
     */
    public void ring(int rank) {
        if (table == null || !ringable[rank]) {
            return;
        }
        VarHandle.fullFence(); // the message was posted before we read the mark
        wakeIfSleeping(rank * CELL_BYTES);
    }

    /** Wakes this process's engine if it sleeps on its doorbell (no message is announced). Any thread. */
    void ringSelf() {
        if (table == null) {
            return;
        }
        VarHandle.fullFence(); // what the engine should see (queued work, a stop) before we read the mark
        wakeIfSleeping(self * CELL_BYTES);
    }

    private void wakeIfSleeping(long offset) {
        if ((int) STATE.getVolatile(table, offset) == SLEEPING && STATE.compareAndSet(table, offset, SLEEPING, AWAKE)) {
            Futex.wake(table.asSlice(offset, 4), 1);
        }
    }

    /** Counts a message received from {@code source}; driving thread only. */
    void arrived(int source) {
        if (table == null) {
            return;
        }
        if (ringable[source]) {
            arrived++;
        } else if (onlyNodeSenders) {
            onlyNodeSenders = false; // a rank of another node sends over MPI after all: poll for its messages again
        }
    }

    /**
     * Whether every message announced to this rank has been received; if not, one is on its way and not yet
     * visible to MPI, so the engine must keep polling instead of sleeping long. Read after {@link #prepareSleep}.
     */
    boolean allAnnouncedArrived() {
        // <=, not ==: a message sent on the engine's communicator without an announcement would otherwise keep
        // the engine from ever sleeping long (none is; the long sleep's timeout is the safety net either way).
        return table == null || (long) COUNT.getVolatile(table, self * CELL_BYTES + ANNOUNCED_OFFSET) <= arrived;
    }

    /** Marks this engine asleep: from now on senders ring. The caller then polls once more before {@link #sleep}. */
    void prepareSleep() {
        STATE.setVolatile(table, self * CELL_BYTES, SLEEPING);
    }

    /** The last poll found work: the engine stays awake. */
    void cancelSleep() {
        STATE.setVolatile(table, self * CELL_BYTES, AWAKE);
    }

    /**
     * Sleeps until rung or {@code nanos} pass (whichever first), then marks the engine awake; returns true if
     * it was rung (the mark had been swung to AWAKE by someone else).
     */
    boolean sleep(long nanos) {
        long offset = self * CELL_BYTES;
        Futex.await(table.asSlice(offset, 4), SLEEPING, nanos, timespec);
        return !STATE.compareAndSet(table, offset, SLEEPING, AWAKE);
    }

    private static MemorySegment map(Path file, int size, boolean enabled) {
        if (!enabled || !Futex.SUPPORTED || !Files.isDirectory(SHM)) {
            return null;
        }
        long bytes = size * CELL_BYTES;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            if (channel.size() < bytes) {
                channel.write(ByteBuffer.allocate(1), bytes - 1); // every rank may do it: same size, zeros
            }
            return channel.map(FileChannel.MapMode.READ_WRITE, 0, bytes, Arena.global());
        } catch (IOException | RuntimeException e) {
            return null; // no doorbells for this rank: it polls at its park cap, as without them
        }
    }

    /** Identifies this node: the kernel's boot id (unique per boot of a machine), else the host name. */
    private static long nodeId() {
        String id;
        try {
            id = Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).strip();
        } catch (IOException | RuntimeException e) {
            id = "";
        }
        if (id.isEmpty()) {
            try {
                id = java.net.InetAddress.getLocalHost().getHostName();
            } catch (IOException e) {
                id = "unknown";
            }
        }
        long hash = 1125899906842597L;
        for (int i = 0; i < id.length(); i++) {
            hash = 31 * hash + id.charAt(i);
        }
        return hash;
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            file.toFile().deleteOnExit(); // a few bytes in /dev/shm; the mappings stay valid either way
        }
    }
}
