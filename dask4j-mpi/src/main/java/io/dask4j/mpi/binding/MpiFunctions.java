package io.dask4j.mpi.binding;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * One downcall handle per MPI function, built once from the loaded library (jextract's holder style:
 * {@code static final} so that the JIT inlines {@code invokeExact}). Handle arguments are adapted to
 * Java {@code long} whatever the ABI, so that {@link Mpi} is written once. Short non-blocking calls are
 * linked with {@code Linker.Option.critical(false)} (no thread-state transition, ~10 ns cheaper).
 *
 * <p>Touch this class only after {@link MpiLibrary#load(String)} succeeded, so that a missing library is a
 * clear {@link MpiException}, not an ExceptionInInitializerError.
 */
final class MpiFunctions {

    static final MpiLibrary LIB = MpiLibrary.loaded();
    static final MpiAbi ABI = LIB.abi();

    static final MethodHandle INIT_THREAD = fn("MPI_Init_thread", false, "ppip");
    static final MethodHandle INITIALIZED = fn("MPI_Initialized", true, "p");
    static final MethodHandle FINALIZED = fn("MPI_Finalized", true, "p");
    static final MethodHandle QUERY_THREAD = fn("MPI_Query_thread", true, "p");
    static final MethodHandle COMM_RANK = fn("MPI_Comm_rank", true, "hp");
    static final MethodHandle COMM_SIZE = fn("MPI_Comm_size", true, "hp");
    static final MethodHandle COMM_DUP = fn("MPI_Comm_dup", false, "hp");
    static final MethodHandle COMM_SPLIT = fn("MPI_Comm_split", false, "hiip");
    static final MethodHandle COMM_FREE = fn("MPI_Comm_free", false, "p");
    static final MethodHandle COMM_SET_ERRHANDLER = fn("MPI_Comm_set_errhandler", false, "hh");
    static final MethodHandle ISEND = fn("MPI_Isend", true, "pihiihp");
    static final MethodHandle IRECV = fn("MPI_Irecv", true, "pihiihp");
    static final MethodHandle IMPROBE = fn("MPI_Improbe", true, "iihppp");
    static final MethodHandle MRECV = fn("MPI_Mrecv", true, "pihpp");
    static final MethodHandle MRECV_BLOCKING = fn("MPI_Mrecv", false, "pihpp");
    static final MethodHandle MRECV_HEAP = fn("MPI_Mrecv", "heap", "pihpp");
    static final MethodHandle IMRECV = fn("MPI_Imrecv", true, "pihpp");
    static final MethodHandle TEST = fn("MPI_Test", true, "ppp");
    static final MethodHandle TESTSOME = fn("MPI_Testsome", true, "ipppp");
    static final MethodHandle WAIT = fn("MPI_Wait", false, "pp");
    static final MethodHandle CANCEL = fn("MPI_Cancel", true, "p");
    static final MethodHandle GET_COUNT = fn("MPI_Get_count", true, "php");
    static final MethodHandle BARRIER = fn("MPI_Barrier", false, "h");
    static final MethodHandle IBARRIER = fn("MPI_Ibarrier", true, "hp");
    static final MethodHandle BCAST = fn("MPI_Bcast", false, "pihih");
    static final MethodHandle ALLGATHER = fn("MPI_Allgather", false, "pihpihh");
    static final MethodHandle ABORT = fn("MPI_Abort", false, "hi");
    static final MethodHandle FINALIZE = fn("MPI_Finalize", false, "");
    static final MethodHandle ERROR_STRING = fn("MPI_Error_string", false, "ipp");
    static final MethodHandle GET_LIBRARY_VERSION = fn("MPI_Get_library_version", false, "pp");

    private MpiFunctions() {
    }

    @SuppressWarnings("unused") // adapts MPICH int handles, see longToInt()
    private static int toInt(long handle) {
        return (int) handle;
    }

    /**
     * A handle for {@code int name(args)} where each char of {@code signature} is an argument: {@code i}
     * int, {@code p} pointer (MemorySegment), {@code h} MPI handle (Java long).
     */
    private static MethodHandle fn(String name, boolean critical, String signature) {
        return fn(name, critical ? "critical" : "", signature);
    }

    /**
     * {@code mode} "critical" links with critical(false); "heap" with critical(true), which also accepts
     * heap segments (the GC waits until the call returns); "" is a normal downcall.
     */
    private static MethodHandle fn(String name, String mode, String signature) {
        MemoryLayout[] layouts = new MemoryLayout[signature.length()];
        for (int i = 0; i < layouts.length; i++) {
            layouts[i] = switch (signature.charAt(i)) {
                case 'i' -> JAVA_INT;
                case 'p' -> ADDRESS;
                case 'h' -> ABI.handleLayout();
                default -> throw new IllegalArgumentException(signature);
            };
        }
        MemorySegment symbol = LIB.symbols().find(name)
                .orElseThrow(() -> new MpiException("MPI library " + LIB.name() + " lacks " + name));
        Linker.Option[] options = switch (mode) {
            case "critical" -> new Linker.Option[] {Linker.Option.critical(false)};
            case "heap" -> new Linker.Option[] {Linker.Option.critical(true)};
            default -> new Linker.Option[0];
        };
        MethodHandle handle = Linker.nativeLinker().downcallHandle(symbol, FunctionDescriptor.of(JAVA_INT, layouts), options);
        for (int i = 0; i < layouts.length; i++) {
            if (signature.charAt(i) == 'h') {
                handle = MethodHandles.filterArguments(handle, i,
                        layouts[i] == JAVA_INT ? longToInt() : longToAddress());
            }
        }
        return handle;
    }

    private static MethodHandle longToInt() {
        return find("toInt", MpiFunctions.class, int.class);
    }

    private static MethodHandle longToAddress() {
        return find("ofAddress", MemorySegment.class, MemorySegment.class);
    }

    private static MethodHandle find(String name, Class<?> owner, Class<?> result) {
        try {
            return MethodHandles.lookup().findStatic(owner, name, MethodType.methodType(result, long.class));
        } catch (ReflectiveOperationException e) {
            throw new MpiException(-1, "cannot adapt MPI handles: " + e, e);
        }
    }
}
