package io.dask4j.array.io;

import java.io.Serializable;

/**
 * Reads rectangular blocks of one array stored in a file, converting its elements to doubles. Made on the
 * client from the file's metadata (which is checked then), serialized into every read task, and used on the
 * worker that runs the task: implementations hold only the file's name and layout, and open the file per
 * call. Thread-safe: a worker may read several blocks at once.
 */
public interface BlockReader extends Serializable {

    /** The array's shape. */
    ArrayShape shape();

    /**
     * The chunk shape the file stores the array in, {@code {rows, cols}} ({@code {1, n}} for 1-D), or {@code
     * null} when the file is not chunked (then any chunking reads equally well).
     */
    int[] storageChunks();

    /**
     * The block of {@code rows x cols} elements whose first element is at row {@code r0}, column {@code c0}, as a
     * row-major {@code double[]}. For a 1-D array {@code r0} is 0 and {@code rows} 1.
     *
     * @throws ArrayFileException if the file is missing, truncated or unreadable
     */
    double[] read(long r0, long c0, int rows, int cols);
}
