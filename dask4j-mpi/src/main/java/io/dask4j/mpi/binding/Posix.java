package io.dask4j.mpi.binding;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The few libc calls the binding needs, through FFM: {@code dlopen}/{@code dlsym}/{@code dlerror} (to load
 * libmpi with RTLD_GLOBAL, which {@link SymbolLookup#libraryLookup} does not), {@code setenv}/{@code getenv}
 * (to keep UCX's signal handlers away from the JVM's), {@code madvise} (huge pages for big buffers), and {@code
 * getsockopt}/{@code shutdown} (to cut MPI's own TCP connections when MPICH's finalize stalls).
 *
 * <p>Stateless and thread-safe (as thread-safe as libc: {@code setenv} must run before other threads
 * read the environment natively, i.e. before libmpi loads).
 */
public final class Posix {

    public static final int RTLD_NOW = 2;
    public static final int RTLD_GLOBAL = 0x100;
    public static final int MADV_HUGEPAGE = 14;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final MethodHandle DLOPEN = fn("dlopen", FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT));
    private static final MethodHandle DLSYM = fn("dlsym", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
    private static final MethodHandle DLERROR = fn("dlerror", FunctionDescriptor.of(ADDRESS));
    private static final MethodHandle SETENV = fn("setenv", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    private static final MethodHandle GETENV = fn("getenv", FunctionDescriptor.of(ADDRESS, ADDRESS));
    private static final MethodHandle MADVISE = fn("madvise", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    private static final MethodHandle MMAP = fn("mmap",
            FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG));
    private static final MethodHandle MUNMAP = fn("munmap", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle GETSOCKOPT = fn("getsockopt",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle SHUTDOWN = fn("shutdown", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final int SOL_SOCKET = 1;
    private static final int SO_TYPE = 3;
    private static final int SO_ACCEPTCONN = 30;
    private static final int SO_DOMAIN = 39;
    private static final int SOCK_STREAM = 1;
    private static final int AF_INET = 2;
    private static final int AF_INET6 = 10;
    private static final int SHUT_RDWR = 2;
    private static final int PROT_READ_WRITE = 0x3;
    private static final int MAP_PRIVATE_ANONYMOUS = 0x02 | 0x20;

    private Posix() {
    }

    private static MethodHandle fn(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(LIBC.find(name).orElseThrow(() -> new MpiException("libc lacks " + name)), descriptor);
    }

    /** dlopen(name, flags); returns the handle, or NULL with {@link #dlerror()} telling why. */
    public static MemorySegment dlopen(String name, int flags) {
        try (Arena arena = Arena.ofConfined()) {
            return (MemorySegment) DLOPEN.invokeExact(arena.allocateFrom(name), flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** dlsym(handle, name) as an address, or NULL when absent. */
    public static MemorySegment dlsym(MemorySegment handle, String name) {
        try (Arena arena = Arena.ofConfined()) {
            return (MemorySegment) DLSYM.invokeExact(handle, arena.allocateFrom(name));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** The last dl* error text, or "" if none. */
    public static String dlerror() {
        try {
            MemorySegment text = (MemorySegment) DLERROR.invokeExact();
            return text.equals(MemorySegment.NULL) ? "" : text.reinterpret(4096).getString(0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** The process's native environment value (sees {@link #setenv} changes, unlike System.getenv). */
    public static String getenv(String name) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment value = (MemorySegment) GETENV.invokeExact(arena.allocateFrom(name));
            return value.equals(MemorySegment.NULL) ? null : value.reinterpret(65536).getString(0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** setenv(name, value, overwrite); false if it failed. */
    public static boolean setenv(String name, String value, boolean overwrite) {
        try (Arena arena = Arena.ofConfined()) {
            return (int) SETENV.invokeExact(arena.allocateFrom(name), arena.allocateFrom(value), overwrite ? 1 : 0) == 0;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Asks the kernel to back {@code segment} with transparent huge pages; a hint, failures ignored. */
    public static void adviseHugePages(MemorySegment segment) {
        try {
            int ignored = (int) MADVISE.invokeExact(segment, segment.byteSize(), MADV_HUGEPAGE);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * Maps {@code bytes} of fresh anonymous memory (zero, not yet touched, so no page is faulted in here)
     * as a global-scope segment; give it back with {@link #munmap}.
     */
    public static MemorySegment mmap(long bytes) {
        try {
            MemorySegment address = (MemorySegment) MMAP.invokeExact(MemorySegment.NULL, bytes, PROT_READ_WRITE,
                    MAP_PRIVATE_ANONYMOUS, -1, 0L);
            if (address.address() == -1L) {
                throw new OutOfMemoryError("mmap of " + bytes + " bytes failed");
            }
            return address.reinterpret(bytes);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static void munmap(MemorySegment segment) {
        try {
            int ignored = (int) MUNMAP.invokeExact(segment, segment.byteSize());
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * Whether {@code fd} is a TCP socket (IPv4 or IPv6, stream) that is not listening: a connection, or one
     * being made. False for anything else and for a closed descriptor.
     */
    public static boolean isTcpConnection(int fd) {
        return socketOption(fd, SO_TYPE) == SOCK_STREAM && socketOption(fd, SO_ACCEPTCONN) == 0
                && (socketOption(fd, SO_DOMAIN) == AF_INET || socketOption(fd, SO_DOMAIN) == AF_INET6);
    }

    /** shutdown(fd, SHUT_RDWR): both directions end, the peer reads end-of-stream; false if it failed. */
    public static boolean shutdown(int fd) {
        try {
            return (int) SHUTDOWN.invokeExact(fd, SHUT_RDWR) == 0;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** An int socket option at SOL_SOCKET, or -1 when {@code fd} is no socket. */
    private static int socketOption(int fd, int option) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment value = arena.allocate(JAVA_INT);
            MemorySegment length = arena.allocateFrom(JAVA_INT, 4);
            int rc = (int) GETSOCKOPT.invokeExact(fd, SOL_SOCKET, option, value, length);
            return rc == 0 ? value.get(JAVA_INT, 0) : -1;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new MpiException(-1, "native call failed: " + t, t);
    }
}
