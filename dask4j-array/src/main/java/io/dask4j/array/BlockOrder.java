package io.dask4j.array;

/**
 * The order in which a persisted 2-D array's blocks are submitted. The scheduler hands tasks without
 * inputs to the workers in contiguous runs of that order (Dask's root-task co-assignment), so the order
 * decides which blocks share a worker. Row-major order scatters block {@code (i, j)} and its mirror
 * {@code (j, i)} over different workers, and then every operation that reads an array together with its
 * transpose ({@code x + x.T}, {@code x.T @ x}, symmetrizing) moves a block between workers for each such
 * pair. Submitting mirrors next to each other, growing square by square, keeps each pair on one worker
 * (only a pair straddling the end of a worker's run is split), and keeps row-major neighbours close as well.
 * It changes where blocks live, never what any task computes. Stateless.
 */
final class BlockOrder {
    private BlockOrder() {
    }

    /** {@code 0, 1, ..., blocks - 1}. */
    static int[] rowMajor(Chunks chunks) {
        int[] order = new int[chunks.blocks()];
        for (int b = 0; b < order.length; b++) {
            order[b] = b;
        }
        return order;
    }

    /**
     * Row-major block indices of {@code chunks}: for {@code k = 0, 1, ...} the pairs {@code (i, k), (k, i)}
     * for {@code i < k}, then {@code (k, k)}; blocks outside a non-square grid are skipped. A 1-D array
     * keeps its order.
     */
    static int[] mirrorsTogether(Chunks chunks) {
        int rows = chunks.blockRows();
        int cols = chunks.blockCols();
        if (chunks.ndim() == 1) {
            return rowMajor(chunks);
        }
        int[] order = new int[rows * cols];
        int n = 0;
        for (int k = 0; k < Math.max(rows, cols); k++) {
            for (int i = 0; i < k; i++) {
                if (i < rows && k < cols) {
                    order[n++] = i * cols + k;
                }
                if (k < rows && i < cols) {
                    order[n++] = k * cols + i;
                }
            }
            if (k < rows && k < cols) {
                order[n++] = k * cols + k;
            }
        }
        return order;
    }
}
