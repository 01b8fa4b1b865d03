package io.dask4j.array;

/**
 * Where {@link DArray#persist(io.dask4j.runtime.client.Client, BlockLayout)} puts a 2-D array's blocks.
 * The scheduler gives blocks made without inputs to the workers in contiguous runs of submission order,
 * so the order chosen here decides which blocks share a worker (see {@link BlockOrder}). Either way
 * every block is computed and every later operation does all its work; only where data lives differs.
 */
public enum BlockLayout {
    /**
     * Block {@code (i, j)} next to its mirror {@code (j, i)}, so that an array and its transpose are read
     * together on one worker ({@code x + x.T}, {@code x.T @ x}); only a pair straddling the boundary between
     * two workers' runs is split. The default.
     */
    MIRRORS_TOGETHER,
    /** Row-major runs (each worker gets a band of block rows): mirrors mostly live on different workers. */
    ROW_MAJOR
}
