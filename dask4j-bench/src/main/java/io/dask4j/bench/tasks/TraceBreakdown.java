package io.dask4j.bench.tasks;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Merges the {@link io.dask4j.comm.stats.LatencyTrace} files of every process of one {@code bench tasks --trace}
 * run into one timeline and prints where a round trip's time goes: for each step (a message written or read, a task
 * started, a future finished, on which process and thread) the median and 90th percentile of the time since the
 * step before, over the rounds that took the most common path. A long step after a write is the wait until the
 * receiving thread ran; a long step between two points of one thread is work.
 *
 * <p>Called by the launching process after the run; not thread-safe.
 */
final class TraceBreakdown {
    static final String START = "round trip starts";
    static final String END = "round trip ends";

    private record Point(long nanos, String pid, String label) {
    }

    private TraceBreakdown() {
    }

    /** Reads {@code dir}'s trace files and prints the breakdown to {@code out}; false if no round was traced. */
    static boolean print(Path dir, PrintStream out) throws IOException {
        List<Point> points = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(p -> p.getFileName().toString().startsWith("trace-")).toList()) {
                for (String line : Files.readAllLines(f)) {
                    String[] parts = line.split(" ", 3);
                    if (parts.length == 3) {
                        points.add(new Point(Long.parseLong(parts[0]), parts[1], parts[2]));
                    }
                }
            }
        }
        points.sort((a, b) -> Long.compare(a.nanos, b.nanos));
        List<List<Point>> rounds = new ArrayList<>();
        List<Point> current = null;
        for (Point p : points) {
            if (p.label.startsWith(START)) {
                current = new ArrayList<>(List.of(p));
            } else if (current != null) {
                current.add(p);
                if (p.label.startsWith(END)) {
                    rounds.add(current);
                    current = null;
                }
            }
        }
        if (rounds.isEmpty()) {
            return false;
        }
        Map<String, String> processes = new HashMap<>();
        Map<List<String>, List<List<Point>>> byPath = new LinkedHashMap<>();
        for (List<Point> round : rounds) {
            List<String> path = new ArrayList<>();
            for (Point p : round) {
                String process = processes.computeIfAbsent(p.pid, pid -> "process " + processes.size());
                path.add(p.label + " [" + process + "]");
            }
            byPath.computeIfAbsent(path, k -> new ArrayList<>()).add(round);
        }
        Map.Entry<List<String>, List<List<Point>>> common = byPath.entrySet().stream()
                .max((a, b) -> Integer.compare(a.getValue().size(), b.getValue().size())).orElseThrow();
        List<String> path = common.getKey();
        List<List<Point>> same = common.getValue();
        out.printf(Locale.ROOT, "where a round trip's time goes: %d of %d traced rounds took this path "
                + "(process 0 is the client's)%n", same.size(), rounds.size());
        out.printf(Locale.ROOT, "%10s %10s  %s%n", "median us", "p90 us", "step (time since the step before)");
        long[] totals = new long[same.size()];
        for (int i = 0; i < same.size(); i++) {
            totals[i] = same.get(i).getLast().nanos - same.get(i).getFirst().nanos;
        }
        for (int step = 1; step < path.size(); step++) {
            long[] gaps = new long[same.size()];
            for (int i = 0; i < same.size(); i++) {
                gaps[i] = same.get(i).get(step).nanos - same.get(i).get(step - 1).nanos;
            }
            out.printf(Locale.ROOT, "%10.1f %10.1f  %s%n", percentile(gaps, 0.5) / 1e3, percentile(gaps, 0.9) / 1e3,
                    path.get(step));
        }
        out.printf(Locale.ROOT, "%10.1f %10.1f  whole round trip%n", percentile(totals, 0.5) / 1e3,
                percentile(totals, 0.9) / 1e3);
        return true;
    }

    private static double percentile(long[] values, double q) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[Math.min(sorted.length - 1, (int) (q * sorted.length))];
    }
}
