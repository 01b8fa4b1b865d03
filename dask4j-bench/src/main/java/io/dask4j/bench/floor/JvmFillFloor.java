package io.dask4j.bench.floor;

import io.dask4j.comm.JvmFlags;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Writer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The floor for reading an array file into fresh JVM heap, beside {@code fill_floor.py}'s for fresh NumPy
 * buffers: reader JVMs (as many as workers), each copying every n-th chunk of a list into a new {@code double[]}
 * out of a mapping of the file, as dask4j's readers copy uncompressed chunks, and doing nothing else. Each read
 * drops the previous read's arrays first, so later reads show what reading costs in heap already touched.
 *
 * <p>{@link FillFloorCommand} ({@code ./dask4j bench fill-floor}) runs it; {@link #main} is a reader JVM's entry
 * point. The chunk list holds one chunk per line, {@code path offset length} ({@code fill_floor.py --list} writes
 * it; lengths are multiples of 8). JVM start-up is not counted: every reader waits for a line on its standard
 * input before each read and answers with its time. Single-threaded: one run at a time, on the caller's thread.
 */
public final class JvmFillFloor {

    private JvmFillFloor() {
    }

    /** A reader JVM, started by {@link #run}: {@code CHUNK_LIST INDEX COUNT}. */
    public static void main(String[] args) throws IOException {
        reader(Path.of(args[0]), Integer.parseInt(args[1]), Integer.parseInt(args[2]));
    }

    /** Starts the readers, runs {@code reads} reads in all of them at once, prints the slowest time of each. */
    static void run(Path list, int readers, int reads, String heap, PrintStream out) throws IOException, InterruptedException {
        List<Process> procs = new ArrayList<>();
        try {
            for (int i = 0; i < readers; i++) {
                procs.add(new ProcessBuilder(JvmFlags.thisJava(), "-Xms" + heap, "-Xmx" + heap, "-cp", System.getProperty("java.class.path"),
                        JvmFillFloor.class.getName(), list.toString(), Integer.toString(i), Integer.toString(readers))
                        .redirectError(ProcessBuilder.Redirect.INHERIT).start());
            }
            List<BufferedReader> answers = procs.stream()
                    .map(p -> new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))).toList();
            List<String> slowest = new ArrayList<>();
            for (int r = 0; r < reads; r++) {
                for (Process p : procs) {
                    Writer go = new java.io.OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8);
                    go.write("go\n");
                    go.flush();
                }
                double max = 0;
                for (BufferedReader a : answers) {
                    String line = a.readLine();
                    if (line == null) {
                        throw new IOException("a reader ended before answering (see its error output)");
                    }
                    max = Math.max(max, Double.parseDouble(line));
                }
                slowest.add(String.format(Locale.ROOT, "%.3f", max));
            }
            out.println(String.join(" ", slowest));
        } finally {
            for (Process p : procs) {
                p.getOutputStream().close();
                p.waitFor();
            }
        }
    }

    /** One reader: its chunks of the list, read into fresh arrays each time a line arrives on standard input. */
    private static void reader(Path list, int index, int count) throws IOException {
        List<Chunk> mine = new ArrayList<>();
        List<Chunk> all = chunks(list);
        for (int i = index; i < all.size(); i += count) {
            mine.add(all.get(i));
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        List<double[]> kept = new ArrayList<>();
        while (in.readLine() != null) {
            kept.clear();
            long t0 = System.nanoTime();
            for (Chunk c : mine) {
                kept.add(read(c));
            }
            System.out.printf(Locale.ROOT, "%.6f%n", (System.nanoTime() - t0) / 1e9);
            System.out.flush();
        }
    }

    /** A chunk's bytes as little-endian doubles, in a new array, copied out of a mapping of the file. */
    static double[] read(Chunk c) throws IOException {
        double[] out = new double[Math.toIntExact(c.length() / Double.BYTES)];
        try (FileChannel ch = FileChannel.open(c.path()); Arena arena = Arena.ofConfined()) {
            MemorySegment mapped = ch.map(FileChannel.MapMode.READ_ONLY, c.offset(), c.length(), arena);
            MemorySegment.copy(mapped, ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 0, out, 0, out.length);
        }
        return out;
    }

    /** One line of a chunk list. */
    record Chunk(Path path, long offset, long length) {
    }

    static List<Chunk> chunks(Path list) throws IOException {
        List<Chunk> out = new ArrayList<>();
        for (String line : Files.readAllLines(list)) {
            if (line.isBlank()) {
                continue;
            }
            String[] f = line.trim().split("\\s+");
            if (f.length != 3 || Long.parseLong(f[2]) % Double.BYTES != 0) {
                throw new IllegalArgumentException(list + ": expected 'path offset length' with length a multiple of 8, got '" + line + "'");
            }
            out.add(new Chunk(Path.of(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2])));
        }
        return out;
    }

    /** Twice a reader's share of the bytes plus 512 MiB, as {@code bench seed} sizes its workers' heaps. */
    static String defaultHeap(List<Chunk> chunks, int readers) {
        long total = chunks.stream().mapToLong(Chunk::length).sum();
        return ((2 * (total / Math.max(1, readers)) >> 20) + 512) + "m";
    }
}
