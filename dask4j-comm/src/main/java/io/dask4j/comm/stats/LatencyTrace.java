package io.dask4j.comm.stats;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A latency trace for benchmarks: named points on the path of a task round trip (a message written or read, a task
 * started, a future finished), each with {@link System#nanoTime()} and the thread. On Linux that clock is
 * CLOCK_MONOTONIC, the same in every process of a host, so the traces of all ranks of one job merge into one
 * timeline ({@code bench tasks --trace}), which shows where each microsecond of a round trip goes: the work of a
 * step, or the wait until a thread that was asleep runs.
 *
 * <p>Off unless {@link #enable} was called (then a fixed number of points is kept, the rest dropped); {@link
 * #mark} costs one volatile read when off. Any thread.
 */
public final class LatencyTrace {
    private static volatile Recording recording;

    private LatencyTrace() {
    }

    private record Recording(String[] points, String[] threads, long[] times, AtomicInteger next) {
    }

    /** Starts keeping up to {@code capacity} points in this process (a new trace replaces an earlier one). */
    public static void enable(int capacity) {
        recording = new Recording(new String[capacity], new String[capacity], new long[capacity], new AtomicInteger());
    }

    /** Whether points are being kept. */
    public static boolean enabled() {
        return recording != null;
    }

    /** Records {@code point} now, if enabled. */
    public static void mark(String point) {
        Recording r = recording;
        if (r == null) {
            return;
        }
        int i = r.next.getAndIncrement();
        if (i < r.times.length) {
            r.times[i] = System.nanoTime();
            r.points[i] = point;
            r.threads[i] = Thread.currentThread().getName();
        }
    }

    /** Records that a message with operation {@code op} was written ({@code written}) or read. */
    public static void message(String op, boolean written) {
        if (recording != null) {
            mark((written ? "write " : "read ") + op);
        }
    }

    /**
     * Writes what was kept to {@code file}, one point per line ({@code nanos pid point @thread}), and stops keeping
     * points. Nothing is written when the trace was never enabled.
     */
    public static void dump(Path file) throws IOException {
        Recording r = recording;
        recording = null;
        if (r == null) {
            return;
        }
        long pid = ProcessHandle.current().pid();
        int n = Math.min(r.next.get(), r.times.length);
        try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(file))) {
            for (int i = 0; i < n; i++) {
                if (r.points[i] != null) {
                    out.println(r.times[i] + " " + pid + " " + r.points[i] + " @" + r.threads[i]);
                }
            }
        }
    }
}
