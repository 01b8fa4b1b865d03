package io.dask4j.mpi.engine;

import java.io.IOException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the kernel says a thread of this JVM is doing (Linux): a test waits until a thread blocks in a futex
 * wait, a state {@link Thread#getState()} cannot show (a thread in a native call is RUNNABLE to Java).
 */
final class KernelThreads {

    private static final MethodHandle GETTID = Linker.nativeLinker().defaultLookup().find("gettid")
            .map(address -> Linker.nativeLinker().downcallHandle(address, FunctionDescriptor.of(ValueLayout.JAVA_INT)))
            .orElseThrow();
    /** The futex system call's number: x86-64 202, AArch64 98 (the architectures {@code Futex} supports). */
    private static final String SYS_FUTEX = System.getProperty("os.arch").equals("aarch64") ? "98" : "202";

    private KernelThreads() {
    }

    /** The calling thread's kernel thread id. */
    static int currentTid() {
        try {
            return (int) GETTID.invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Waits (up to 20 s, else fails naming {@code who}) until thread {@code tid} is blocked in a futex call. */
    static void awaitInFutexWait(int tid, String who) {
        Path syscall = Path.of("/proc/self/task/" + tid + "/syscall");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        String seen = "";
        while (!(seen = read(syscall)).startsWith(SYS_FUTEX + " ")) {
            assertThat(System.nanoTime() - deadline).as(who + " blocked in futex within 20 s; " + syscall + ": " + seen).isNegative();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file).strip();
        } catch (IOException e) {
            return e.toString();
        }
    }
}
