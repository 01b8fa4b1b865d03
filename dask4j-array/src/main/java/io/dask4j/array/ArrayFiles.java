package io.dask4j.array;

import io.dask4j.array.io.ArrayFileException;
import io.dask4j.array.io.ArrayShape;
import io.dask4j.array.io.BlockReader;
import io.dask4j.array.io.ElementType;
import io.dask4j.array.io.NpyFormat;
import io.dask4j.array.io.RawArray;
import io.dask4j.array.io.ZarrArray;
import io.dask4j.runtime.client.Client;
import io.dask4j.runtime.client.TaskGraph;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;

/**
 * Builds the graphs that read arrays from files and write them back: one task per block, run on the workers.
 * Metadata is read and checked here, on the calling thread, before any task is submitted. Stateless.
 */
final class ArrayFiles {
    /**
     * A block made of a file's storage chunks is grown to at least this many bytes: HDF5 files often have chunks
     * of a few KiB, and a task per such chunk would spend more on scheduling than on reading (Dask's automatic
     * chunking grows blocks from the stored chunks the same way).
     */
    static final long MIN_BLOCK_BYTES = 16L << 20;
    /**
     * The most blocks a file's own chunking may cut an array into. A file costs nothing to declare a shape of 2^31
     * x 2^31 in chunks of 1 x 1 (unwritten chunks take no space), and a graph of that many tasks would exhaust the
     * client's memory while it is built; a few million tasks is already more than a scheduler handles well.
     */
    static final long MAX_BLOCKS = 1L << 22;
    /** The most elements of a block: a {@code double[]} holds no more. */
    static final long MAX_BLOCK_ELEMENTS = Integer.MAX_VALUE - 8;
    private static final Pattern ZARR_CHUNK_NAME = Pattern.compile("\\d+([./]\\d+)?|\\.[\\d./]+\\.partial");

    private ArrayFiles() {
    }

    /**
     * The array {@code reader} reads from {@code file}, in blocks of {@code spec} or, when {@code spec} is null, of
     * the file's chunks.
     */
    static DArray read(String op, Path file, BlockReader reader, ChunkSpec spec, boolean growSmallChunks) {
        ArrayShape s = reader.shape();
        Chunks ch = chunks(file, s, reader.storageChunks(), spec, growSmallChunks);
        Source.Builder out = new Source.Builder(op, ch);
        for (int i = 0; i < ch.blockRows(); i++) {
            for (int j = 0; j < ch.blockCols(); j++) {
                out.block(i * ch.blockCols() + j, FileTasks.READ, reader, ch.rowStart(i), ch.colStart(j), ch.rowSize(i), ch.colSize(j));
            }
        }
        return DArray.of(out.build());
    }

    private static Chunks chunks(Path file, ArrayShape s, int[] storage, ChunkSpec spec, boolean grow) {
        if (spec == null && storage == null) {
            spec = ChunkSpec.auto();
        }
        if (spec != null) {
            return s.ndim() == 1 ? spec.resolve1d(s.cols()) : spec.resolve2d(s.rows(), s.cols());
        }
        int r = Math.max(1, Math.min(storage[0], Math.max(1, s.rows())));
        int c = Math.max(1, Math.min(storage[1], Math.max(1, s.cols())));
        while (grow && (long) r * c * Double.BYTES < MIN_BLOCK_BYTES && (r < s.rows() || c < s.cols())) {
            if (c < s.cols() && (c <= r || r >= s.rows())) {
                c = (int) Math.min(s.cols(), 2L * c);
            } else {
                r = (int) Math.min(s.rows(), 2L * r);
            }
        }
        // Checked before the chunk lists are made: a list of 2^31 chunk sizes alone would exhaust the client's memory.
        long blocks = (s.rows() == 0 ? 1 : (s.rows() - 1L) / r + 1) * (s.cols() == 0 ? 1 : (s.cols() - 1L) / c + 1);
        if (blocks > MAX_BLOCKS || (long) r * c > MAX_BLOCK_ELEMENTS) {
            throw new ArrayFileException(file, "its chunks of " + r + " x " + c + " cut its shape " + s.numpy() + " into "
                    + (blocks > MAX_BLOCKS ? blocks + " blocks, more than the " + MAX_BLOCKS + " a graph is built with"
                    : "blocks of " + (long) r * c + " elements, more than a Java array holds")
                    + "; read it with a ChunkSpec");
        }
        return s.ndim() == 1 ? Chunks.of1d(Chunks.regular(s.cols(), c), s.cols())
                : Chunks.of2d(Chunks.regular(s.rows(), r), Chunks.regular(s.cols(), c), s.rows(), s.cols());
    }

    /** Writes {@code a} as a Zarr v2 array in {@code dir}; the {@code .zarray} is written last, once every chunk is. */
    static void toZarr(DArray a, Client client, Path dir, WriteOptions options) {
        prepareZarrDir(dir, options.overwrite());
        DArray regular = isRegular(a.chunks) ? a : a.rechunk(ChunkSpec.of(a.chunks.rowSize(0), a.chunks.colSize(0)));
        Chunks ch = regular.chunks;
        ArrayShape shape = shapeOf(ch);
        ZarrArray target = ZarrArray.forWriting(dir, shape, ch.rowSize(0), ch.colSize(0), options.compressor());
        Source src = regular.materialize();
        Source.Builder out = new Source.Builder("to-zarr", ch).dependsOn(List.of(src));
        for (int i = 0; i < ch.blockRows(); i++) {
            for (int j = 0; j < ch.blockCols(); j++) {
                int b = i * ch.blockCols() + j;
                out.block(b, FileTasks.WRITE_ZARR_CHUNK, target, i, j, ch.rowSize(i), ch.colSize(j), TaskGraph.ref(src.keys[b]));
            }
        }
        run(client, out.build());
        target.writeMetadata();
    }

    /** Writes {@code a} as one C-order little-endian float64 run after {@code header(shape)} bytes, into {@code file}. */
    static void toFile(DArray a, Client client, Path file, WriteOptions options, boolean npy) {
        if (Files.exists(file) && !options.overwrite()) {
            throw new ArrayFileException(file, "exists; write with WriteOptions.DEFAULT.overwriting() to replace it");
        }
        if (Files.isDirectory(file)) {
            throw new ArrayFileException(file, "is a directory");
        }
        Chunks ch = a.chunks;
        ArrayShape shape = shapeOf(ch);
        byte[] header = npy ? NpyFormat.header(shape, ElementType.FLOAT64_LE) : new byte[0];
        Path tmp = file.resolveSibling("." + file.getFileName() + ".partial-" + Long.toHexString(ThreadLocalRandom.current().nextLong()));
        RawArray target = new RawArray(tmp.toString(), header.length, shape, ElementType.FLOAT64_LE, false);
        target.createFile(header);
        boolean done = false;
        try {
            Source src = a.materialize();
            Source.Builder out = new Source.Builder(npy ? "to-npy" : "to-raw", ch).dependsOn(List.of(src));
            for (int i = 0; i < ch.blockRows(); i++) {
                for (int j = 0; j < ch.blockCols(); j++) {
                    int b = i * ch.blockCols() + j;
                    out.block(b, FileTasks.WRITE_RUN, target, ch.rowStart(i), ch.colStart(j), ch.rowSize(i), ch.colSize(j),
                            TaskGraph.ref(src.keys[b]));
                }
            }
            run(client, out.build());
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            done = true;
        } catch (IOException e) {
            throw new ArrayFileException(file, "moving the written file into place failed: " + e, e);
        } finally {
            if (!done) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException ignored) {
                    // the error that got us here matters more than a leftover temporary file
                }
            }
        }
    }

    private static void run(Client client, Source writes) {
        client.compute(writes.graph(), writes.keys);
    }

    private static ArrayShape shapeOf(Chunks ch) {
        return ch.ndim() == 1 ? new ArrayShape(1, 1, ch.cols()) : new ArrayShape(2, ch.rows(), ch.cols());
    }

    /** Whether every chunk but the last of each axis has the first chunk's size, as Zarr's grid requires. */
    private static boolean isRegular(Chunks ch) {
        for (int i = 0; i + 1 < ch.blockRows(); i++) {
            if (ch.rowSize(i) != ch.rowSize(0)) {
                return false;
            }
        }
        for (int j = 0; j + 1 < ch.blockCols(); j++) {
            if (ch.colSize(j) != ch.colSize(0)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Makes {@code dir} ready for a new array: refuses an existing target unless overwriting, and then removes
     * only what a Zarr array holds (its metadata first, so a reader never sees old metadata over new chunks).
     */
    private static void prepareZarrDir(Path dir, boolean overwrite) {
        try {
            if (Files.exists(dir)) {
                boolean isArray = Files.exists(dir.resolve(".zarray"));
                boolean empty;
                try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
                    empty = !entries.iterator().hasNext();
                }
                if (!empty && !overwrite) {
                    throw new ArrayFileException(dir, "exists; write with WriteOptions.DEFAULT.overwriting() to replace it");
                }
                if (!empty && !isArray) {
                    throw new ArrayFileException(dir, "exists and is not a Zarr array; refusing to overwrite it");
                }
                Files.deleteIfExists(dir.resolve(".zarray"));
                Files.deleteIfExists(dir.resolve(".zattrs"));
                deleteChunks(dir, dir);
            }
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new ArrayFileException(dir, "preparing the directory failed: " + e, e);
        }
    }

    private static void deleteChunks(Path root, Path dir) throws IOException {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path p : entries) {
                String rel = root.relativize(p).toString();
                if (Files.isDirectory(p) && rel.matches("\\d+")) {
                    deleteChunks(root, p);
                    Files.deleteIfExists(p);
                } else if (ZARR_CHUNK_NAME.matcher(p.getFileName().toString()).matches() || ZARR_CHUNK_NAME.matcher(rel).matches()) {
                    Files.delete(p);
                }
            }
        }
    }
}
