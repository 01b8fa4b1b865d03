package io.dask4j.array;

import java.util.List;

/**
 * A computed array brought to this process: {@code rows x cols} doubles, row-major in {@code data}
 * (a 1-D array is one row). A plain value; {@code data} is not copied, so treat it as read-only.
 */
public record Matrix(int rows, int cols, double[] data) {
    public Matrix {
        if ((long) rows * cols != data.length) {
            throw new IllegalArgumentException(rows + " x " + cols + " does not match " + data.length + " values");
        }
    }

    /** The value at row {@code r}, column {@code c} (for a 1-D array: {@code get(0, i)}). */
    public double get(int r, int c) {
        // Checked per index: r * cols + c alone would let a column past the end read the next row.
        return data[java.util.Objects.checkIndex(r, rows) * cols + java.util.Objects.checkIndex(c, cols)];
    }

    /** A copy as {@code double[rows][cols]}. */
    public double[][] toArray() {
        double[][] out = new double[rows][];
        for (int r = 0; r < rows; r++) {
            out[r] = java.util.Arrays.copyOfRange(data, r * cols, (r + 1) * cols);
        }
        return out;
    }

    /** Equal when the shapes and all values are equal (records compare arrays by identity otherwise). */
    @Override
    public boolean equals(Object o) {
        return o instanceof Matrix m && m.rows == rows && m.cols == cols && java.util.Arrays.equals(m.data, data);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * rows + cols) + java.util.Arrays.hashCode(data);
    }

    @Override
    public String toString() {
        return "Matrix[" + rows + " x " + cols + (data.length <= 16 ? ", " + java.util.Arrays.toString(data) : "") + "]";
    }

    /** Puts blocks (row-major {@code double[]}s in block order) together into one matrix. */
    static Matrix assemble(Chunks chunks, List<Object> blocks) {
        int rows = chunks.rows();
        int cols = chunks.cols();
        if ((long) rows * cols > Integer.MAX_VALUE - 16) {
            throw new IllegalStateException("an array of shape " + chunks.shapeText() + " is too large to bring to one process");
        }
        double[] out = new double[rows * cols];
        for (int i = 0; i < chunks.blockRows(); i++) {
            for (int j = 0; j < chunks.blockCols(); j++) {
                double[] block = (double[]) blocks.get(i * chunks.blockCols() + j);
                int h = chunks.rowSize(i);
                int w = chunks.colSize(j);
                if (block.length != h * w) {
                    throw new IllegalStateException("block (" + i + ", " + j + ") has " + block.length + " values, expected " + h * w);
                }
                Kernels.copyRect(block, w, 0, 0, out, cols, (int) chunks.rowStart(i), (int) chunks.colStart(j), h, w);
            }
        }
        return new Matrix(chunks.ndim() == 1 ? 1 : rows, cols, out);
    }
}
