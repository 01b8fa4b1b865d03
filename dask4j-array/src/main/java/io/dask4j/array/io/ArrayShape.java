package io.dask4j.array.io;

import java.io.Serializable;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The shape of an array in a file, as a {@code DArray} holds it: 2-D {@code rows x cols}, or 1-D of {@code
 * cols} elements (then {@code rows} is 1). Immutable.
 */
public record ArrayShape(int ndim, int rows, int cols) implements Serializable {

    public ArrayShape {
        if (ndim != 1 && ndim != 2 || rows < 0 || cols < 0 || ndim == 1 && rows != 1) {
            throw new IllegalArgumentException("bad shape: ndim " + ndim + ", " + rows + " x " + cols);
        }
    }

    /** The shape of a file's array with dimensions {@code dims}; refuses what a DArray cannot hold. */
    public static ArrayShape of(long[] dims, Path file) {
        if (dims.length != 1 && dims.length != 2) {
            throw new ArrayFileException(file, "the array has " + dims.length + " dimensions " + Arrays.toString(dims)
                    + "; a DArray holds 1-D and 2-D arrays");
        }
        for (long d : dims) {
            if (d < 0 || d > Integer.MAX_VALUE) {
                throw new ArrayFileException(file, "dimension " + d + " of shape " + Arrays.toString(dims)
                        + " is out of range (0 to " + Integer.MAX_VALUE + ")");
            }
        }
        return dims.length == 1 ? new ArrayShape(1, 1, (int) dims[0]) : new ArrayShape(2, (int) dims[0], (int) dims[1]);
    }

    /** The number of elements. */
    public long size() {
        return (long) rows * cols;
    }

    /** The shape as NumPy writes it: {@code (rows, cols)} or {@code (n,)}. */
    public String numpy() {
        return ndim == 1 ? "(" + cols + ",)" : "(" + rows + ", " + cols + ")";
    }

    /** The dimensions as a list, {@code [rows, cols]} or {@code [n]}. */
    public long[] dims() {
        return ndim == 1 ? new long[]{cols} : new long[]{rows, cols};
    }
}
