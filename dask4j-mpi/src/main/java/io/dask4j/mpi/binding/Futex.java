package io.dask4j.mpi.binding;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.Locale;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Linux futexes on shared memory, through libc's {@code syscall}: a thread of one process sleeps on a 32-bit
 * word of a shared mapping ({@link #await}) and a thread of another process wakes it ({@link #wake}), with
 * no polling. Only the shared (non-private) operations are used, since the word lives in a mapping several
 * processes see.
 *
 * <p>Stateless and thread-safe. {@link #SUPPORTED} is false off Linux or on an architecture whose futex
 * system call number is not known here; callers must check it first.
 */
public final class Futex {

    /** Whether futexes can be used on this platform (Linux on x86-64 or AArch64). */
    public static final boolean SUPPORTED;
    private static final long SYS_FUTEX;
    private static final long FUTEX_WAIT = 0;
    private static final long FUTEX_WAKE = 1;
    private static final MethodHandle SYSCALL;

    static {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "");
        long number = switch (arch) {
            case "amd64", "x86_64" -> 202;
            case "aarch64" -> 98;
            default -> -1;
        };
        MethodHandle handle = null;
        if (os.contains("linux") && number > 0) {
            Linker linker = Linker.nativeLinker();
            // long syscall(long number, ...): every argument passed as a long (register-sized on both ABIs).
            handle = linker.defaultLookup().find("syscall").map(address -> linker.downcallHandle(address,
                    FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),
                    Linker.Option.firstVariadicArg(1))).orElse(null);
        }
        SYSCALL = handle;
        SYS_FUTEX = number;
        SUPPORTED = handle != null;
    }

    private Futex() {
    }

    /**
     * Sleeps while the int at {@code word} (4-byte aligned, in shared memory) equals {@code expected}, for at
     * most {@code timeoutNanos}; returns at once if it differs. May also return early (a wake-up, a signal):
     * callers re-check their condition. {@code timespec}: 16 native bytes of the caller's, overwritten.
     */
    public static void await(MemorySegment word, int expected, long timeoutNanos, MemorySegment timespec) {
        MemorySegment timeout = timespec.asSlice(0, 16);
        try {
            timeout.set(JAVA_LONG, 0, timeoutNanos / 1_000_000_000L);
            timeout.set(JAVA_LONG, 8, timeoutNanos % 1_000_000_000L);
            long ignored = (long) SYSCALL.invokeExact(SYS_FUTEX, word.address(), FUTEX_WAIT, (long) expected,
                    timeout.address());
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    /** Wakes up to {@code count} threads (of any process) sleeping on {@code word}. */
    public static void wake(MemorySegment word, int count) {
        try {
            long ignored = (long) SYSCALL.invokeExact(SYS_FUTEX, word.address(), FUTEX_WAKE, (long) count, 0L);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }
}
