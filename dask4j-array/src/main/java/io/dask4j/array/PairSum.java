package io.dask4j.array;

/**
 * The sum over a block of {@code a op b} where {@code a} and {@code b} are two input slots read straight from
 * their blocks, transposed or not: the reduction of the seed expression {@code (x + x.T).transpose().sum()}
 * and of its kind. Each element is read once from each input and added into its lane, where {@link
 * TileEvaluator}'s general path fills a tile buffer from one input, applies the other into it and then reads
 * it again to sum it; a transposed input is read down its columns, eight elements from each cache line as the
 * rows of a tile go by.
 *
 * <p>The result is bit-for-bit the general path's: the same tiles in the same order, each tile summed into the
 * four interleaved lanes of {@link ReduceOp#SUM} over its row-major elements and the tile sums folded in
 * order. That holds when every tile row starts a new group of four lanes, so {@link #applies} asks for a
 * column count that is a multiple of 4 (tiles are {@link Kernels#TILE} wide, itself one). Stateless.
 */
final class PairSum {
    private PairSum() {
    }

    /** Whether {@link #sum} computes a pair's {@code op} over {@code axis} for blocks of {@code cols} columns. */
    static boolean applies(ReduceOp op, int axis, int cols) {
        return op == ReduceOp.SUM && axis == -1 && cols % 4 == 0;
    }

    /**
     * The sum of {@code op(a(r, c), b(r, c))} over a {@code rows x cols} block in tiles of {@code tileRows x}
     * {@link Kernels#TILE}. Element {@code (r, c)} of {@code a} is {@code a[aOrigin + r * aRowStep + c *
     * aColStep]} (steps {@code stride, 1} for a block read in place, {@code 1, stride} for one read transposed),
     * likewise for {@code b}; the caller has checked that every such index is inside its array.
     */
    static double sum(BinaryOp op, double[] a, int aOrigin, int aRowStep, int aColStep,
                      double[] b, int bOrigin, int bRowStep, int bColStep, int rows, int cols, int tileRows) {
        if (cols % 4 != 0) {
            throw new IllegalArgumentException("a pair sum needs a multiple of 4 columns, not " + cols);
        }
        double acc = ReduceOp.SUM.identity;
        for (int r0 = 0; r0 < rows; r0 += tileRows) {
            int r1 = Math.min(rows, r0 + tileRows);
            for (int c0 = 0; c0 < cols; c0 += Kernels.TILE) {
                int w = Math.min(Kernels.TILE, cols - c0);
                // ReduceOp.SUM.over's lanes: lane k holds the elements whose row-major index in the tile is k mod 4
                double s0 = 0;
                double s1 = 0;
                double s2 = 0;
                double s3 = 0;
                for (int r = r0; r < r1; r++) {
                    int ia = aOrigin + r * aRowStep + c0 * aColStep;
                    int ib = bOrigin + r * bRowStep + c0 * bColStep;
                    for (int c = 0; c < w; c += 4) {
                        s0 += op.of(a[ia], b[ib]);
                        s1 += op.of(a[ia + aColStep], b[ib + bColStep]);
                        s2 += op.of(a[ia + 2 * aColStep], b[ib + 2 * bColStep]);
                        s3 += op.of(a[ia + 3 * aColStep], b[ib + 3 * bColStep]);
                        ia += 4 * aColStep;
                        ib += 4 * bColStep;
                    }
                }
                acc = ReduceOp.SUM.of(acc, (s0 + s1) + (s2 + s3));
            }
        }
        return acc;
    }
}
