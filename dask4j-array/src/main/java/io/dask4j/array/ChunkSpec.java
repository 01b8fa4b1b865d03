package io.dask4j.array;

import java.util.Arrays;

/**
 * How an array creation function should cut an array into chunks: {@link #auto()} (about 128 MiB
 * per chunk, as Dask's {@code chunks="auto"}), a regular chunk size per axis ({@link #of}), or the
 * exact sizes of every chunk ({@link #explicit}). Immutable.
 */
public final class ChunkSpec {
    /** Dask's default {@code array.chunk-size}: 128 MiB of doubles per chunk. */
    public static final long AUTO_CHUNK_BYTES = 128L << 20;

    private final int rows;
    private final int cols;
    private final int[] rowSizes;
    private final int[] colSizes;

    private ChunkSpec(int rows, int cols, int[] rowSizes, int[] colSizes) {
        this.rows = rows;
        this.cols = cols;
        this.rowSizes = rowSizes;
        this.colSizes = colSizes;
    }

    /** About 128 MiB per chunk, square where the array allows, like Dask's {@code "auto"}. */
    public static ChunkSpec auto() {
        return new ChunkSpec(0, 0, null, null);
    }

    /** Square chunks of {@code size} (the last chunk of an axis may be smaller); also 1-D chunks of {@code size}. */
    public static ChunkSpec of(int size) {
        return of(size, size);
    }

    /** Chunks of {@code rows x cols} (the last chunk of an axis may be smaller). */
    public static ChunkSpec of(int rows, int cols) {
        if (rows <= 0 || cols <= 0) {
            throw new IllegalArgumentException("chunk sizes must be positive, got " + rows + " x " + cols);
        }
        return new ChunkSpec(rows, cols, null, null);
    }

    /** Exactly these chunk sizes along rows and columns (each must add up to the array's extent). */
    public static ChunkSpec explicit(int[] rowSizes, int[] colSizes) {
        return new ChunkSpec(0, 0, rowSizes.clone(), colSizes.clone());
    }

    /** Parses {@code auto}, {@code N} or {@code RxC} (as the command line gives it). */
    public static ChunkSpec parse(String text) {
        String t = text.trim().toLowerCase(java.util.Locale.ROOT);
        if (t.equals("auto")) {
            return auto();
        }
        try {
            int x = t.indexOf('x');
            return x < 0 ? of(Integer.parseInt(t)) : of(Integer.parseInt(t.substring(0, x)), Integer.parseInt(t.substring(x + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("chunks must be 'auto', N or RxC, got '" + text + "'");
        }
    }

    /** The chunk grid this spec gives a 2-D array of {@code nrows x ncols}. */
    Chunks resolve2d(int nrows, int ncols) {
        if (rowSizes != null) {
            return Chunks.of2d(rowSizes, colSizes, nrows, ncols);
        }
        int r = rows;
        int c = cols;
        if (r == 0) {
            long limit = AUTO_CHUNK_BYTES / Double.BYTES;
            if ((long) nrows * ncols <= limit) {
                r = Math.max(1, nrows);
                c = Math.max(1, ncols);
            } else {
                int side = (int) Math.sqrt((double) limit);
                if (nrows <= side) {
                    r = nrows;
                    c = (int) Math.min(ncols, limit / nrows);
                } else if (ncols <= side) {
                    c = ncols;
                    r = (int) Math.min(nrows, limit / ncols);
                } else {
                    r = side;
                    c = side;
                }
            }
        }
        return Chunks.of2d(Chunks.regular(nrows, r), Chunks.regular(ncols, c), nrows, ncols);
    }

    /** The chunk grid this spec gives a 1-D array of {@code n} elements. */
    Chunks resolve1d(int n) {
        if (colSizes != null) {
            return Chunks.of1d(colSizes, n);
        }
        int c = cols == 0 ? (int) Math.min(Math.max(1, n), AUTO_CHUNK_BYTES / Double.BYTES) : cols;
        return Chunks.of1d(Chunks.regular(n, c), n);
    }

    @Override
    public String toString() {
        if (rowSizes != null) {
            return "explicit(" + Arrays.toString(rowSizes) + ", " + Arrays.toString(colSizes) + ")";
        }
        return rows == 0 ? "auto" : rows + "x" + cols;
    }
}
