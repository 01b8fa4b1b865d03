package io.dask4j.mpi.binding;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static io.dask4j.mpi.binding.MpiFunctions.ABI;

/**
 * A thin binding to the C MPI API through java.lang.foreign, for Open MPI and MPICH alike (see {@link
 * MpiAbi}). Handles (communicators, datatypes, requests, messages) are Java {@code long}s.
 *
 * <p>Two kinds of methods: the hot-path calls ({@link #isend}, {@link #improbe}, {@link #testsome}, ...)
 * take caller-owned native out-parameters and return the MPI error code, allocating nothing; the
 * convenience calls ({@link #commRank}, {@link #barrier}, ...) throw {@link MpiException} carrying
 * {@code MPI_Error_string}'s text. Buffers passed to non-blocking calls must be native segments that stay
 * alive until the request completes.
 *
 * <p><b>Threads.</b> The binding itself keeps no state; what threads may call MPI is MPI's rule for the
 * thread level granted by {@link #initThread}. In dask4j the progress engine serializes all calls.
 */
public final class Mpi implements PointToPoint {

    public static final int SUCCESS = 0;

    private static volatile Mpi instance;

    private final MpiLibrary library;

    private Mpi(MpiLibrary library) {
        this.library = library;
    }

    /**
     * Loads the MPI library (once per process: {@code library}, a soname or a path, or if null the one matching the
     * launcher's environment) and returns the binding; MPI is not initialized yet.
     */
    public static Mpi load(String library) {
        Mpi mpi = instance;
        if (mpi == null) {
            synchronized (Mpi.class) {
                if (instance == null) {
                    MpiLibrary lib = MpiLibrary.load(library);
                    MpiFunctions.LIB.name(); // links every function now, where errors are clear
                    instance = new Mpi(lib);
                }
                mpi = instance;
            }
        }
        return mpi;
    }

    /** Open MPI's idle-yield switch, looked up on first use (empty on other MPIs). */
    private volatile Optional<MethodHandle> idleYieldSwitch;

    public MpiLibrary library() {
        return library;
    }

    @Override
    public MpiAbi abi() {
        return ABI;
    }

    // ---- hot path: caller-owned out-parameters, error code returned ----

    @Override
    public int isend(MemorySegment buf, int count, long datatype, int dest, int tag, long comm, MemorySegment request) {
        try {
            return (int) MpiFunctions.ISEND.invokeExact(buf, count, datatype, dest, tag, comm, request);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    @Override
    public int irecv(MemorySegment buf, int count, long datatype, int source, int tag, long comm, MemorySegment request) {
        try {
            return (int) MpiFunctions.IRECV.invokeExact(buf, count, datatype, source, tag, comm, request);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    @Override
    public int improbe(int source, int tag, long comm, MemorySegment flag, MemorySegment message, MemorySegment status) {
        try {
            return (int) MpiFunctions.IMPROBE.invokeExact(source, tag, comm, flag, message, status);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    @Override
    public int mrecv(MemorySegment buf, int count, long datatype, MemorySegment message, MemorySegment status) {
        try {
            return (int) MpiFunctions.MRECV.invokeExact(buf, count, datatype, message, status);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    /** MPI_Mrecv linked without the critical option: for messages that may wait on a rendezvous. */
    @Override
    public int mrecvBlocking(MemorySegment buf, int count, long datatype, MemorySegment message, MemorySegment status) {
        try {
            return (int) MpiFunctions.MRECV_BLOCKING.invokeExact(buf, count, datatype, message, status);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    /**
     * MPI_Mrecv straight into a heap segment (a Java array): linked with critical(true), so the GC waits
     * until the message has arrived. For matched messages only, whose sender is progressing.
     */
    @Override
    public int mrecvHeap(MemorySegment buf, int count, long datatype, MemorySegment message, MemorySegment status) {
        try {
            return (int) MpiFunctions.MRECV_HEAP.invokeExact(buf, count, datatype, message, status);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    @Override
    public int imrecv(MemorySegment buf, int count, long datatype, MemorySegment message, MemorySegment request) {
        try {
            return (int) MpiFunctions.IMRECV.invokeExact(buf, count, datatype, message, request);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    @Override
    public int test(MemorySegment request, MemorySegment flag, MemorySegment status) {
        try {
            return (int) MpiFunctions.TEST.invokeExact(request, flag, status);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    @Override
    public int testsome(int incount, MemorySegment requests, MemorySegment outcount, MemorySegment indices, MemorySegment statuses) {
        try {
            return (int) MpiFunctions.TESTSOME.invokeExact(incount, requests, outcount, indices, statuses);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    /** MPI_Ibarrier: a barrier that completes through the request (lets other traffic progress meanwhile). */
    public int ibarrier(long comm, MemorySegment request) {
        try {
            return (int) MpiFunctions.IBARRIER.invokeExact(comm, request);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    public int waitFor(MemorySegment request, MemorySegment status) {
        try {
            return (int) MpiFunctions.WAIT.invokeExact(request, status);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    @Override
    public int cancel(MemorySegment request) {
        try {
            return (int) MpiFunctions.CANCEL.invokeExact(request);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    @Override
    public int getCount(MemorySegment status, long datatype, MemorySegment count) {
        try {
            return (int) MpiFunctions.GET_COUNT.invokeExact(status, datatype, count);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    // ---- convenience calls: throw MpiException ----

    /** MPI_Init_thread(NULL, NULL, required); returns the level provided. */
    public ThreadLevel initThread(ThreadLevel required) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment provided = arena.allocate(JAVA_INT);
            check((int) MpiFunctions.INIT_THREAD.invokeExact(MemorySegment.NULL, MemorySegment.NULL, required.ordinal(), provided),
                    "MPI_Init_thread");
            return ThreadLevel.of(provided.get(JAVA_INT, 0));
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    /**
     * Open MPI only: whether its progress calls {@code sched_yield()} after every call that found nothing.
     * Open MPI turns that on whenever its launcher reports the node oversubscribed (more ranks than cores), and
     * its {@code mpi_yield_when_idle} parameter cannot turn it off then. It helps while messages come in quick
     * succession (the engine's empty probes hand the core to the tasks and come back at once) and costs when
     * they come rarely (every empty probe loses the core for a time slice), so the progress engine switches it
     * (see {@code ProgressEngine}). Sets libopen-pal's {@code opal_progress_set_yield_when_idle}; returns false
     * (and does nothing) on other MPIs or when the library has no such function. Any thread, after MPI_Init.
     */
    @Override
    public boolean openMpiIdleYield(boolean on) {
        if (idleYieldSwitch == null) {
            idleYieldSwitch = library.symbols().find("opal_progress_set_yield_when_idle").map(symbol ->
                    Linker.nativeLinker().downcallHandle(symbol, FunctionDescriptor.of(JAVA_BOOLEAN, JAVA_BOOLEAN)));
        }
        if (idleYieldSwitch.isEmpty()) {
            return false;
        }
        try {
            boolean ignoredPrevious = (boolean) idleYieldSwitch.get().invokeExact(on); // invokeExact wants the type
            return true;
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    public boolean initialized() {
        return flag(MpiFunctions.INITIALIZED, "MPI_Initialized");
    }

    public boolean finalized() {
        return flag(MpiFunctions.FINALIZED, "MPI_Finalized");
    }

    public ThreadLevel queryThread() {
        return ThreadLevel.of(intOut(MpiFunctions.QUERY_THREAD, "MPI_Query_thread"));
    }

    public int commRank(long comm) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            check((int) MpiFunctions.COMM_RANK.invokeExact(comm, out), "MPI_Comm_rank");
            return out.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    @Override
    public int commSize(long comm) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            check((int) MpiFunctions.COMM_SIZE.invokeExact(comm, out), "MPI_Comm_size");
            return out.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    /** MPI_Comm_dup; collective over {@code comm}. */
    public long commDup(long comm) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ABI.handleBytes(), 8);
            check((int) MpiFunctions.COMM_DUP.invokeExact(comm, out), "MPI_Comm_dup");
            return ABI.readHandle(out, 0);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    /** MPI_Comm_split; collective over {@code comm}. */
    public long commSplit(long comm, int color, int key) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ABI.handleBytes(), 8);
            check((int) MpiFunctions.COMM_SPLIT.invokeExact(comm, color, key, out), "MPI_Comm_split");
            return ABI.readHandle(out, 0);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    public void commFree(long comm) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment handle = arena.allocate(ABI.handleBytes(), 8);
            ABI.writeHandle(handle, 0, comm);
            check((int) MpiFunctions.COMM_FREE.invokeExact(handle), "MPI_Comm_free");
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    /** Makes MPI errors on {@code comm} return codes (turned into MpiException) instead of aborting. */
    public void setErrorsReturn(long comm) {
        try {
            check((int) MpiFunctions.COMM_SET_ERRHANDLER.invokeExact(comm, ABI.errorsReturn()), "MPI_Comm_set_errhandler");
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    public void barrier(long comm) {
        try {
            check((int) MpiFunctions.BARRIER.invokeExact(comm), "MPI_Barrier");
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    /** MPI_Bcast of the bytes of a native segment (at most 2 GiB). */
    public void bcast(MemorySegment buf, int root, long comm) {
        try {
            check((int) MpiFunctions.BCAST.invokeExact(buf, Math.toIntExact(buf.byteSize()), ABI.byteType(), root, comm), "MPI_Bcast");
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    /** MPI_Allgather of {@code send}'s bytes; {@code recv} holds size × send.byteSize() bytes. */
    public void allgather(MemorySegment send, MemorySegment recv, long comm) {
        int count = Math.toIntExact(send.byteSize());
        try {
            check((int) MpiFunctions.ALLGATHER.invokeExact(send, count, ABI.byteType(), recv, count, ABI.byteType(), comm),
                    "MPI_Allgather");
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    /** MPI_Abort: asks the launcher to kill every rank of {@code comm}'s job. Normally does not return. */
    public void abort(long comm, int errorCode) {
        try {
            check((int) MpiFunctions.ABORT.invokeExact(comm, errorCode), "MPI_Abort");
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    public void finalizeMpi() {
        try {
            check((int) MpiFunctions.FINALIZE.invokeExact(), "MPI_Finalize");
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    /** MPI_Error_string's text for an error code (never throws). */
    @Override
    public String errorString(int errorCode) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment text = arena.allocate(1024);
            MemorySegment length = arena.allocate(JAVA_INT);
            int rc = (int) MpiFunctions.ERROR_STRING.invokeExact(errorCode, text, length);
            return rc == SUCCESS ? text.getString(0, StandardCharsets.UTF_8) : "unknown MPI error " + errorCode;
        } catch (Throwable t) {
            return "unknown MPI error " + errorCode + " (" + t + ")";
        }
    }

    /** MPI_Get_library_version's text (callable before MPI_Init). */
    public String libraryVersion() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment text = arena.allocate(8192);
            MemorySegment length = arena.allocate(JAVA_INT);
            check((int) MpiFunctions.GET_LIBRARY_VERSION.invokeExact(text, length), "MPI_Get_library_version");
            return text.getString(0, StandardCharsets.UTF_8).strip();
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    private boolean flag(java.lang.invoke.MethodHandle fn, String call) {
        return intOut(fn, call) != 0;
    }

    private int intOut(java.lang.invoke.MethodHandle fn, String call) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            check((int) fn.invokeExact(out), call);
            return out.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }
}
