package io.dask4j.array;

import java.util.Arrays;

/**
 * The sum over a block of {@code a op b} where {@code a} and {@code b} are two input slots read straight from
 * their blocks, transposed or not: the reduction of the seed expression {@code (x + x.T).transpose().sum()}
 * and of its kind. Each element is read once from each input and added into its lane, where {@link
 * TileEvaluator}'s general path fills a tile buffer from one input, applies the other into it and then reads
 * it again to sum it. The tiles of a band of rows are summed side by side, a whole row at a time, so an input
 * read in place streams along its rows and one read transposed gives eight elements of each cache line to
 * eight rows in turn; on blocks that the caches do not hold (the seed's) that costs a third less than tile
 * after tile.
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
     * {@link Kernels#TILE}, folded in row-major tile order. Element {@code (r, c)} of {@code a} is {@code
     * a[aOrigin + r * aRowStep + c * aColStep]} (steps {@code stride, 1} for a block read in place, {@code 1,
     * stride} for one read transposed), likewise for {@code b}; the caller has checked that every such index is
     * inside its array.
     */
    static double sum(BinaryOp op, double[] a, int aOrigin, int aRowStep, int aColStep,
                      double[] b, int bOrigin, int bRowStep, int bColStep, int rows, int cols, int tileRows) {
        if (cols % 4 != 0) {
            throw new IllegalArgumentException("a pair sum needs a multiple of 4 columns, not " + cols);
        }
        int tileCols = (cols + Kernels.TILE - 1) / Kernels.TILE;
        // ReduceOp.SUM.over's lanes per tile of the current band: lane k of a tile holds the elements whose
        // row-major index in the tile is k mod 4, each in row order
        double[] lanes = new double[4 * tileCols];
        double acc = ReduceOp.SUM.identity;
        for (int r0 = 0; r0 < rows; r0 += tileRows) {
            int r1 = Math.min(rows, r0 + tileRows);
            Arrays.fill(lanes, 0.0);
            // a band's tiles side by side, a whole row at a time: an input read in place streams along its rows
            for (int r = r0; r < r1; r++) {
                int ia = aOrigin + r * aRowStep;
                int ib = bOrigin + r * bRowStep;
                for (int c0 = 0, t = 0; c0 < cols; c0 += Kernels.TILE, t += 4) {
                    int w = Math.min(Kernels.TILE, cols - c0);
                    double s0 = lanes[t];
                    double s1 = lanes[t + 1];
                    double s2 = lanes[t + 2];
                    double s3 = lanes[t + 3];
                    for (int c = 0; c < w; c += 4) {
                        s0 += of(op, a[ia], b[ib]);
                        s1 += of(op, a[ia + aColStep], b[ib + bColStep]);
                        s2 += of(op, a[ia + 2 * aColStep], b[ib + 2 * bColStep]);
                        s3 += of(op, a[ia + 3 * aColStep], b[ib + 3 * bColStep]);
                        ia += 4 * aColStep;
                        ib += 4 * bColStep;
                    }
                    lanes[t] = s0;
                    lanes[t + 1] = s1;
                    lanes[t + 2] = s2;
                    lanes[t + 3] = s3;
                }
            }
            for (int t = 0; t < lanes.length; t += 4) {
                acc = ReduceOp.SUM.of(acc, (lanes[t] + lanes[t + 1]) + (lanes[t + 2] + lanes[t + 3]));
            }
        }
        return acc;
    }

    /**
     * {@code op.of(x, y)}, with the common operations written out: called with several operations in one JVM,
     * {@code op.of} alone becomes a virtual call per element, which doubled the time per block.
     */
    private static double of(BinaryOp op, double x, double y) {
        return switch (op) {
            case ADD -> x + y;
            case SUB -> x - y;
            case MUL -> x * y;
            default -> op.of(x, y);
        };
    }
}
