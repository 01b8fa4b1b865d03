package io.dask4j.array;

import io.dask4j.array.io.ArrayShape;
import io.dask4j.array.io.ElementType;
import io.dask4j.array.io.Hdf5Array;
import io.dask4j.array.io.NpyFormat;
import io.dask4j.array.io.RawArray;
import io.dask4j.array.io.StorageOrder;
import io.dask4j.array.io.ZarrArray;

import java.nio.file.Path;

/**
 * Creates {@link DArray}s: random (seeded), zeros, ones, full, arange, from local data, and from files (Zarr,
 * HDF5, NumPy {@code .npy}, raw binary), in 2-D ({@code rows, cols}) or 1-D ({@code n}), chunked by a {@link
 * ChunkSpec}. Creation only builds the graph: each block is made by its own task on a worker (local data
 * travels embedded in its block's task; file data is read by the worker, never by the client). A file's
 * metadata is read when the array is created, so a missing file, a wrong dataset, an unsupported element type
 * or a truncated file is an {@link io.dask4j.array.io.ArrayFileException} then, before any task runs.
 * Stateless and thread-safe.
 */
public final class DArrays {
    private DArrays() {
    }

    /**
     * Uniform values in [0, 1). The value of each element depends only on {@code seed} and its position
     * (a counter-based generator), so the array is the same for any cluster size and any chunking.
     */
    public static DArray random(int rows, int cols, ChunkSpec chunks, long seed) {
        return random(chunks.resolve2d(rows, cols), seed);
    }

    public static DArray random(int n, ChunkSpec chunks, long seed) {
        return random(chunks.resolve1d(n), seed);
    }

    private static DArray random(Chunks ch, long seed) {
        Source.Builder out = new Source.Builder("random", ch);
        long total = ch.cols();
        for (int i = 0; i < ch.blockRows(); i++) {
            for (int j = 0; j < ch.blockCols(); j++) {
                out.block(i * ch.blockCols() + j, ArrayTasks.RANDOM, seed, ch.rowStart(i), ch.colStart(j), ch.rowSize(i), ch.colSize(j), total);
            }
        }
        return DArray.of(out.build());
    }

    public static DArray zeros(int rows, int cols, ChunkSpec chunks) {
        return full(rows, cols, 0.0, chunks);
    }

    public static DArray zeros(int n, ChunkSpec chunks) {
        return full(n, 0.0, chunks);
    }

    public static DArray ones(int rows, int cols, ChunkSpec chunks) {
        return full(rows, cols, 1.0, chunks);
    }

    public static DArray ones(int n, ChunkSpec chunks) {
        return full(n, 1.0, chunks);
    }

    public static DArray full(int rows, int cols, double value, ChunkSpec chunks) {
        return full(chunks.resolve2d(rows, cols), value);
    }

    public static DArray full(int n, double value, ChunkSpec chunks) {
        return full(chunks.resolve1d(n), value);
    }

    private static DArray full(Chunks ch, double value) {
        Source.Builder out = new Source.Builder(value == 0 ? "zeros" : value == 1 ? "ones" : "full", ch);
        for (int i = 0; i < ch.blockRows(); i++) {
            for (int j = 0; j < ch.blockCols(); j++) {
                out.block(i * ch.blockCols() + j, ArrayTasks.FULL, value, ch.rowSize(i) * ch.colSize(j));
            }
        }
        return DArray.of(out.build());
    }

    /** {@code 0, 1, ..., n - 1} as a 1-D array. */
    public static DArray arange(int n, ChunkSpec chunks) {
        return arange(0, n, 1, chunks);
    }

    /** {@code start, start + step, ...} below {@code stop} (above it for a negative step), as NumPy's arange. */
    public static DArray arange(double start, double stop, double step, ChunkSpec chunks) {
        if (step == 0 || Double.isNaN(step)) {
            throw new IllegalArgumentException("arange step must be non-zero, got " + step);
        }
        long n = (long) Math.max(0, Math.ceil((stop - start) / step));
        if (n > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("arange(" + start + ", " + stop + ", " + step + ") has " + n + " elements");
        }
        return arange(chunks.resolve1d((int) n), start, step);
    }

    /** {@code 0, 1, 2, ...} in row-major order over a {@code rows x cols} array (arange reshaped). */
    public static DArray arange(int rows, int cols, ChunkSpec chunks) {
        return arange(chunks.resolve2d(rows, cols), 0, 1);
    }

    private static DArray arange(Chunks ch, double start, double step) {
        Source.Builder out = new Source.Builder("arange", ch);
        for (int i = 0; i < ch.blockRows(); i++) {
            for (int j = 0; j < ch.blockCols(); j++) {
                out.block(i * ch.blockCols() + j, ArrayTasks.ARANGE, start, step, ch.rowStart(i), ch.colStart(j),
                        ch.rowSize(i), ch.colSize(j), (long) ch.cols());
            }
        }
        return DArray.of(out.build());
    }

    /** A 2-D array from local rows (all of equal length); each block travels inside its task. */
    public static DArray fromArray(double[][] data, ChunkSpec chunks) {
        int rows = data.length;
        int cols = rows == 0 ? 0 : data[0].length;
        double[] flat = new double[rows * cols];
        for (int r = 0; r < rows; r++) {
            if (data[r].length != cols) {
                throw new IllegalArgumentException("row " + r + " has " + data[r].length + " values, row 0 has " + cols);
            }
            System.arraycopy(data[r], 0, flat, r * cols, cols);
        }
        return fromArray(flat, rows, cols, chunks);
    }

    /** A 2-D array from {@code rows x cols} row-major values. */
    public static DArray fromArray(double[] data, int rows, int cols, ChunkSpec chunks) {
        if ((long) rows * cols != data.length) {
            throw new IllegalArgumentException(rows + " x " + cols + " does not match " + data.length + " values");
        }
        return fromFlat(data, chunks.resolve2d(rows, cols));
    }

    /** A 1-D array. */
    public static DArray fromArray(double[] data, ChunkSpec chunks) {
        return fromFlat(data, chunks.resolve1d(data.length));
    }

    private static DArray fromFlat(double[] data, Chunks ch) {
        Source.Builder out = new Source.Builder("array", ch);
        int cols = ch.cols();
        for (int i = 0; i < ch.blockRows(); i++) {
            for (int j = 0; j < ch.blockCols(); j++) {
                int h = ch.rowSize(i);
                int w = ch.colSize(j);
                double[] block = new double[h * w];
                Kernels.copyRect(data, cols, (int) ch.rowStart(i), (int) ch.colStart(j), block, w, 0, 0, h, w);
                out.block(i * ch.blockCols() + j, ArrayTasks.CONSTANT, (Object) block);
            }
        }
        return DArray.of(out.build());
    }

    // ---- files ---------------------------------------------------------------------------------

    /** A Zarr v2 or v3 array (a directory with a {@code .zarray} or a {@code zarr.json}), one block per Zarr chunk. */
    public static DArray fromZarr(Path dir) {
        return ArrayFiles.read("zarr", dir, ZarrArray.open(dir), null, false);
    }

    /** A Zarr v2 or v3 array in blocks of {@code chunks} (a block reads every Zarr chunk it overlaps). */
    public static DArray fromZarr(Path dir, ChunkSpec chunks) {
        return ArrayFiles.read("zarr", dir, ZarrArray.open(dir), chunks, false);
    }

    /**
     * A dataset of an HDF5 (or NetCDF-4) file, e.g. {@code fromHdf5(file, "/temperature")}: a chunked dataset in
     * blocks made of whole storage chunks (grown to at least {@value ArrayFiles#MIN_BLOCK_BYTES} bytes where the
     * file's chunks are smaller), a contiguous one in automatic blocks.
     */
    public static DArray fromHdf5(Path file, String dataset) {
        return ArrayFiles.read("hdf5", file, Hdf5Array.open(file, dataset), null, true);
    }

    /** An HDF5 dataset in blocks of {@code chunks}. */
    public static DArray fromHdf5(Path file, String dataset, ChunkSpec chunks) {
        return ArrayFiles.read("hdf5", file, Hdf5Array.open(file, dataset), chunks, true);
    }

    /** A NumPy {@code .npy} file (C or Fortran order, either byte order, float or integer elements), in automatic blocks. */
    public static DArray fromNpy(Path file) {
        return ArrayFiles.read("npy", file, NpyFormat.open(file), null, false);
    }

    /** A NumPy {@code .npy} file in blocks of {@code chunks}. */
    public static DArray fromNpy(Path file, ChunkSpec chunks) {
        return ArrayFiles.read("npy", file, NpyFormat.open(file), chunks, false);
    }

    /**
     * A raw binary file holding only the elements: {@code shape} is {@code {rows, cols}} or {@code {n}},
     * {@code dtype} a name ({@code float64}, {@code int32}, ...; little-endian) or a NumPy type string ({@code
     * >f8}), {@code order} the element order.
     */
    public static DArray fromRaw(Path file, int[] shape, String dtype, StorageOrder order) {
        return fromRaw(file, shape, dtype, order, ChunkSpec.auto());
    }

    /** A raw binary file in blocks of {@code chunks}. */
    public static DArray fromRaw(Path file, int[] shape, String dtype, StorageOrder order, ChunkSpec chunks) {
        long[] dims = java.util.Arrays.stream(shape).asLongStream().toArray();
        RawArray raw = new RawArray(file.toString(), 0, ArrayShape.of(dims, file), ElementType.named(dtype), order == StorageOrder.F);
        return ArrayFiles.read("raw", file, raw.checked(), chunks, false);
    }
}
