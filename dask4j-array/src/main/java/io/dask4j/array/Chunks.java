package io.dask4j.array;

import java.util.Arrays;

/**
 * The chunk grid of an array: the sizes of its chunks along rows and along columns. A 1-D array of
 * n elements is kept as one row of n columns ({@code ndim() == 1}), so every block is a row-major
 * {@code double[]} of {@code rowSize(i) * colSize(j)} values. Immutable and thread-safe.
 */
public final class Chunks {
    private final int ndim;
    private final int[] rowSizes;
    private final int[] colSizes;
    private final long[] rowStarts;
    private final long[] colStarts;

    private Chunks(int ndim, int[] rowSizes, int[] colSizes) {
        this.ndim = ndim;
        this.rowSizes = rowSizes;
        this.colSizes = colSizes;
        this.rowStarts = starts(rowSizes);
        this.colStarts = starts(colSizes);
    }

    /** The most doubles one block may hold: a block is one {@code double[]}, and JVMs refuse arrays near 2^31. */
    static final long MAX_BLOCK_ELEMENTS = Integer.MAX_VALUE - 8;

    static Chunks of2d(int[] rowSizes, int[] colSizes, int nrows, int ncols) {
        check(rowSizes, nrows, "row");
        check(colSizes, ncols, "column");
        checkBlockSize(largest(rowSizes), largest(colSizes));
        return new Chunks(2, rowSizes.clone(), colSizes.clone());
    }

    static Chunks of1d(int[] sizes, int n) {
        check(sizes, n, "element");
        checkBlockSize(1, largest(sizes));
        return new Chunks(1, new int[]{1}, sizes.clone());
    }

    /** Refused while the graph is built, instead of as a NegativeArraySizeException on a worker. */
    private static void checkBlockSize(int rows, int cols) {
        if ((long) rows * cols > MAX_BLOCK_ELEMENTS) {
            throw new IllegalArgumentException("chunks of " + rows + " x " + cols + " doubles exceed the "
                    + MAX_BLOCK_ELEMENTS + " a block (one Java array) can hold; choose smaller chunks");
        }
    }

    private static int largest(int[] sizes) {
        return Arrays.stream(sizes).max().orElse(0);
    }

    /** Sizes {@code chunk, chunk, ..., rest} covering {@code n} (one empty chunk for n = 0). */
    static int[] regular(int n, int chunk) {
        if (n < 0 || chunk <= 0) {
            throw new IllegalArgumentException("bad extent " + n + " or chunk " + chunk);
        }
        if (n == 0) {
            return new int[]{0};
        }
        int count = (n - 1) / chunk + 1; // not (n + chunk - 1) / chunk, which overflows for a chunk near 2^31
        int[] out = new int[count];
        Arrays.fill(out, chunk);
        out[count - 1] = n - chunk * (count - 1);
        return out;
    }

    private static void check(int[] sizes, int n, String what) {
        long total = 0;
        for (int s : sizes) {
            if (s < 0) {
                throw new IllegalArgumentException("negative chunk size in " + Arrays.toString(sizes));
            }
            total += s;
        }
        if (sizes.length == 0 || total != n) {
            throw new IllegalArgumentException(what + " chunks " + Arrays.toString(sizes) + " do not add up to " + n);
        }
    }

    private static long[] starts(int[] sizes) {
        long[] s = new long[sizes.length + 1];
        for (int i = 0; i < sizes.length; i++) {
            s[i + 1] = s[i] + sizes[i];
        }
        return s;
    }

    public int ndim() {
        return ndim;
    }

    public int rows() {
        return (int) rowStarts[rowSizes.length];
    }

    public int cols() {
        return (int) colStarts[colSizes.length];
    }

    public int blockRows() {
        return rowSizes.length;
    }

    public int blockCols() {
        return colSizes.length;
    }

    public int blocks() {
        return rowSizes.length * colSizes.length;
    }

    public int rowSize(int i) {
        return rowSizes[i];
    }

    public int colSize(int j) {
        return colSizes[j];
    }

    public long rowStart(int i) {
        return rowStarts[i];
    }

    public long colStart(int j) {
        return colStarts[j];
    }

    int[] rowSizes() {
        return rowSizes.clone();
    }

    int[] colSizes() {
        return colSizes.clone();
    }

    /** The grid of the transposed array (a 1-D grid is its own transpose). */
    Chunks transposed() {
        return ndim == 1 ? this : new Chunks(2, colSizes, rowSizes);
    }

    /** The block holding global row {@code r} (binary search over the starts). */
    int blockOfRow(long r) {
        return blockOf(rowStarts, r);
    }

    int blockOfCol(long c) {
        return blockOf(colStarts, c);
    }

    private static int blockOf(long[] starts, long x) {
        int i = Arrays.binarySearch(starts, x);
        int b = i >= 0 ? i : -i - 2;
        return Math.min(b, starts.length - 2);
    }

    /** The shape as text: {@code (rows, cols)} or {@code (n,)}. */
    public String shapeText() {
        return ndim == 1 ? "(" + cols() + ",)" : "(" + rows() + ", " + cols() + ")";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Chunks c && c.ndim == ndim && Arrays.equals(c.rowSizes, rowSizes) && Arrays.equals(c.colSizes, colSizes);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(rowSizes) + Arrays.hashCode(colSizes) + ndim;
    }

    @Override
    public String toString() {
        return ndim == 1 ? "(" + axis(colSizes) + ",)" : "(" + axis(rowSizes) + ", " + axis(colSizes) + ")";
    }

    private static String axis(int[] sizes) {
        boolean regular = true;
        for (int i = 0; i < sizes.length - 1; i++) {
            regular &= sizes[i] == sizes[0];
        }
        if (sizes.length > 3 && regular) {
            int last = sizes[sizes.length - 1];
            return sizes[0] + " x" + (last == sizes[0] ? sizes.length : (sizes.length - 1) + " + " + last);
        }
        return Arrays.toString(sizes);
    }
}
