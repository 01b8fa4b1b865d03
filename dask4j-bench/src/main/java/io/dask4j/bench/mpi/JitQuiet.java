package io.dask4j.bench.mpi;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.LongSupplier;

/**
 * Keeps the JIT compiler out of a CPU-time window: {@link #await} waits until this JVM's compiler threads have used no
 * CPU for a while, and {@link #compilerCpuNanos} tells how much they used, so that the idle phase of {@code bench comm}
 * measures a quiet rank and says what compiling remained in it.
 *
 * <p>Why: a C2 compile that the timed phases or the idle phase's own set-up started runs on the rank's compiler
 * thread for up to half a second on a busy 2-core node (e.g. {@code MethodType.makeImpl}, made hot by the lambdas and
 * method handles of that set-up); inside a 3 s window that alone read as 7-13% of a core, while the progress engine
 * made 2 passes a second.
 *
 * <p>Compiler threads are found by name in {@code /proc/self/task} (Linux, where MPI runs are measured); elsewhere
 * {@link #compilerCpuNanos} is 0 and {@link #await} returns at once. Stateless; any thread.
 */
final class JitQuiet {

    /** A pause between samples; in tests, a fake that advances a fake clock. */
    interface Sleeper {
        void sleep(long nanos) throws InterruptedException;
    }

    /** The kernel's fixed unit of the times in {@code /proc/<pid>/task/<tid>/stat} (USER_HZ). */
    private static final long NANOS_PER_TICK = 10_000_000L;
    /** Sampling step: a tenth of a second, ten times the kernel's tick. */
    static final long STEP_NANOS = 100_000_000L;

    private JitQuiet() {
    }

    /**
     * Samples {@code compilerCpu} every {@link #STEP_NANOS} until it has not risen for {@code quietNanos}; true then,
     * false once {@code timeoutNanos} passed without such a spell (the window is measured anyway, and its compiler
     * share is reported).
     */
    static boolean await(LongSupplier compilerCpu, LongSupplier clock, Sleeper sleeper, long quietNanos,
                         long timeoutNanos) throws InterruptedException {
        long start = clock.getAsLong();
        long last = compilerCpu.getAsLong();
        long quietSince = start;
        while (true) {
            long now = clock.getAsLong();
            if (now - quietSince >= quietNanos) {
                return true;
            }
            if (now - start >= timeoutNanos) {
                return false;
            }
            sleeper.sleep(STEP_NANOS);
            long cpu = compilerCpu.getAsLong();
            if (cpu != last) {
                last = cpu;
                quietSince = clock.getAsLong();
            }
        }
    }

    /** {@link #await} on this JVM's compiler threads and clock. */
    static boolean await(long quietNanos, long timeoutNanos) throws InterruptedException {
        return await(JitQuiet::compilerCpuNanos, System::nanoTime, nanos -> Thread.sleep(nanos / 1_000_000),
                quietNanos, timeoutNanos);
    }

    /** CPU time used so far by this JVM's JIT compiler threads (C1 and C2), 0 where /proc is not there. */
    static long compilerCpuNanos() {
        long ticks = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                ticks += compilerTicks(task);
            }
        } catch (IOException | RuntimeException e) {
            return 0; // not Linux: nothing to wait for
        }
        return ticks * NANOS_PER_TICK;
    }

    private static long compilerTicks(Path task) {
        try {
            return compilerTicks(Files.readString(task.resolve("stat")));
        } catch (IOException e) {
            return 0; // the thread ended meanwhile
        }
    }

    /** User plus system ticks of one {@code stat} line, if its thread is a compiler thread ("C2 CompilerThre"), else 0. */
    static long compilerTicks(String stat) {
        int open = stat.indexOf('(');
        int close = stat.lastIndexOf(')');
        if (open < 0 || close < open || !stat.substring(open + 1, close).contains("CompilerThre")) {
            return 0;
        }
        // After the name: state, ppid, pgrp, session, tty_nr, tpgid, flags, minflt, cminflt, majflt, cmajflt, utime, stime.
        String[] fields = stat.substring(close + 2).split(" ");
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }
}
