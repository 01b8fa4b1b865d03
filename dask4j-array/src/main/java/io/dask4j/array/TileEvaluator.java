package io.dask4j.array;

import java.util.Arrays;

/**
 * Evaluates a {@link BlockExpr} for one output block, a tile at a time: each slot's tile is
 * read (transposed or not, from any offset of its input block) into a small buffer, the operations run
 * over the tile buffers, and the tile is then either copied into the output block or folded into a
 * reduction. A whole fused expression thus makes at most one full-size array (the output), none when it
 * is reduced, and transposes read their input in cache-friendly tiles (64 x 64, or 512 x 64 when an input of
 * a large block is read transposed). The whole-block sum of two inputs combined ({@code (x + x.T).sum()}) skips
 * the tile buffers: {@link PairSum} reads each element once, with the same result to the last bit.
 *
 * <p>The geometry is {@code [rows, cols, then per slot: stride, rowOff, colOff, transposed(0|1)]}:
 * element {@code (r, c)} of slot {@code s} is {@code in[s][(rowOff + r) * stride + colOff + c]}, or
 * {@code in[s][(rowOff + c) * stride + colOff + r]} when transposed. One instance per task; not thread-safe.
 */
final class TileEvaluator {
    private static final int TILE = Kernels.TILE;
    /**
     * Tile height when a large input block is read transposed. Such an input is read down its columns: the
     * tile's height is the length of each contiguous run, and 64 doubles (512 B) was too short for the hardware
     * prefetcher once the block no longer fits the caches. Measured on the seed expression, single-threaded,
     * 512 x 64 against 64 x 64 tiles (the tall tile, 256 KiB, still fits a core's L2): a 4096² block 56-73 ms
     * against 84-111 ms; 2000² a tie; 500², which the caches hold, 0.8 ms against 0.55 ms.
     */
    private static final int TALL_TILE_ROWS = 512;
    /** Output blocks of at least this many elements (64 MiB of doubles) use tall tiles if an input is transposed. */
    private static final long TALL_TILE_MIN_ELEMENTS = 1L << 23;

    private final BlockExpr expr;
    private final double[][] inputs;
    private final int[] geometry;
    private final int rows;
    private final int cols;
    private final double[][] buffers;
    private final int tileRows;

    TileEvaluator(BlockExpr expr, int[] geometry, double[][] inputs) {
        this.expr = expr;
        this.geometry = geometry;
        this.inputs = inputs;
        this.rows = geometry[0];
        this.cols = geometry[1];
        if (geometry.length != 2 + 4 * inputs.length) {
            throw new IllegalArgumentException("geometry of " + geometry.length + " ints does not fit " + inputs.length + " inputs");
        }
        boolean transposed = false;
        for (int s = 0; s < inputs.length; s++) {
            checkWindow(s);
            transposed |= geometry[5 + 4 * s] != 0;
        }
        this.tileRows = transposed && (long) rows * cols >= TALL_TILE_MIN_ELEMENTS ? TALL_TILE_ROWS : TILE;
        this.buffers = new double[expr.buffers()][];
    }

    private void checkWindow(int s) {
        int stride = geometry[2 + 4 * s];
        int rowOff = geometry[3 + 4 * s];
        int colOff = geometry[4 + 4 * s];
        boolean t = geometry[5 + 4 * s] != 0;
        long lastRow = rowOff + (long) (t ? cols : rows) - 1;
        long lastCol = colOff + (long) (t ? rows : cols) - 1;
        if (rows > 0 && cols > 0 && (lastCol >= stride || (lastRow + 1) * stride > inputs[s].length)) {
            throw new IllegalArgumentException("input " + s + " of " + inputs[s].length + " values is too small for a "
                    + rows + " x " + cols + " window at (" + rowOff + ", " + colOff + ") with row length " + stride);
        }
    }

    /** The whole output block, row-major. */
    double[] materialize() {
        double[] out = new double[rows * cols];
        if (expr instanceof BlockExpr.Leaf(int slot)) {
            int stride = geometry[2 + 4 * slot];
            int rowOff = geometry[3 + 4 * slot];
            int colOff = geometry[4 + 4 * slot];
            if (geometry[5 + 4 * slot] != 0) {
                Kernels.transpose(inputs[slot], stride, rowOff, colOff, out, rows, cols);
            } else {
                Kernels.copyRect(inputs[slot], stride, rowOff, colOff, out, cols, 0, 0, rows, cols);
            }
            return out;
        }
        for (int r0 = 0; r0 < rows; r0 += tileRows) {
            int h = Math.min(tileRows, rows - r0);
            for (int c0 = 0; c0 < cols; c0 += TILE) {
                int w = Math.min(TILE, cols - c0);
                double[] tile = eval(expr, 0, r0, c0, h, w);
                Kernels.copyRect(tile, w, 0, 0, out, cols, r0, c0, h, w);
            }
        }
        return out;
    }

    /**
     * Reduces the block: {@code axis = -1} gives {@code [value]}, {@code 0} one value per column
     * (reducing over rows), {@code 1} one value per row.
     */
    double[] reduce(ReduceOp op, int axis) {
        // Only with square tiles: a large block read transposed (tall tiles) is summed faster tile by tile, since
        // PairSum's row sweep then reads a whole row of cache lines of the transposed input per row (the 20000² seed,
        // 4096² blocks, took 1.57 s a run with PairSum against 0.69 s without, 3 runs each, idle 2-core VM).
        if (tileRows == TILE && expr instanceof BlockExpr.Binary(BinaryOp bop, BlockExpr.Leaf(int a), BlockExpr.Leaf(int b))
                && PairSum.applies(op, axis, cols)) {
            return new double[]{PairSum.sum(bop, inputs[a], origin(a), rowStep(a), colStep(a),
                    inputs[b], origin(b), rowStep(b), colStep(b), rows, cols, tileRows)};
        }
        double[] acc = new double[axis == -1 ? 1 : axis == 0 ? cols : rows];
        Arrays.fill(acc, op.identity);
        for (int r0 = 0; r0 < rows; r0 += tileRows) {
            int h = Math.min(tileRows, rows - r0);
            for (int c0 = 0; c0 < cols; c0 += TILE) {
                int w = Math.min(TILE, cols - c0);
                double[] tile = eval(expr, 0, r0, c0, h, w);
                switch (axis) {
                    case -1 -> acc[0] = op.of(acc[0], op.over(tile, h * w));
                    case 0 -> {
                        for (int r = 0; r < h; r++) {
                            for (int c = 0; c < w; c++) {
                                acc[c0 + c] = op.of(acc[c0 + c], tile[r * w + c]);
                            }
                        }
                    }
                    default -> {
                        for (int r = 0; r < h; r++) {
                            double a = acc[r0 + r];
                            for (int c = 0; c < w; c++) {
                                a = op.of(a, tile[r * w + c]);
                            }
                            acc[r0 + r] = a;
                        }
                    }
                }
            }
        }
        return acc;
    }

    /** Where slot {@code s}'s element {@code (0, 0)} is in its input. */
    private int origin(int s) {
        return geometry[3 + 4 * s] * geometry[2 + 4 * s] + geometry[4 + 4 * s];
    }

    /** How far apart slot {@code s}'s elements {@code (r, c)} and {@code (r + 1, c)} are in its input. */
    private int rowStep(int s) {
        return geometry[5 + 4 * s] != 0 ? 1 : geometry[2 + 4 * s];
    }

    /** How far apart slot {@code s}'s elements {@code (r, c)} and {@code (r, c + 1)} are in its input. */
    private int colStep(int s) {
        return geometry[5 + 4 * s] != 0 ? geometry[2 + 4 * s] : 1;
    }

    /** Evaluates {@code e} over one tile into {@code buffers[depth]} (using only buffers from depth on) and returns it. */
    private double[] eval(BlockExpr e, int depth, int r0, int c0, int h, int w) {
        return switch (e) {
            case BlockExpr.Leaf l -> load(l.slot(), buffer(depth), r0, c0, h, w);
            case BlockExpr.Unary u -> {
                double[] a = eval(u.a(), depth, r0, c0, h, w);
                u.op().apply(a, h * w);
                yield a;
            }
            case BlockExpr.Binary b -> {
                double[] a = eval(b.a(), depth, r0, c0, h, w);
                if (b.b() instanceof BlockExpr.Leaf(int slot) && geometry[5 + 4 * slot] == 0) {
                    // an untransposed input is read in place, row by row
                    double[] in = inputs[slot];
                    int stride = geometry[2 + 4 * slot];
                    int base = (geometry[3 + 4 * slot] + r0) * stride + geometry[4 + 4 * slot] + c0;
                    for (int r = 0; r < h; r++) {
                        b.op().applyRow(a, r * w, in, base + r * stride, w);
                    }
                } else {
                    double[] y = eval(b.b(), depth + 1, r0, c0, h, w);
                    b.op().apply(a, y, h * w);
                }
                yield a;
            }
            case BlockExpr.Scalar s -> {
                double[] a = eval(s.a(), depth, r0, c0, h, w);
                s.op().applyScalar(a, s.value(), s.scalarFirst(), h * w);
                yield a;
            }
        };
    }

    private double[] buffer(int depth) {
        double[] b = buffers[depth];
        if (b == null) {
            b = buffers[depth] = new double[tileRows * TILE];
        }
        return b;
    }

    private double[] load(int slot, double[] buf, int r0, int c0, int h, int w) {
        double[] in = inputs[slot];
        int stride = geometry[2 + 4 * slot];
        int rowOff = geometry[3 + 4 * slot];
        int colOff = geometry[4 + 4 * slot];
        if (geometry[5 + 4 * slot] == 0) {
            for (int r = 0; r < h; r++) {
                System.arraycopy(in, (rowOff + r0 + r) * stride + colOff + c0, buf, r * w, w);
            }
        } else {
            for (int c = 0; c < w; c++) {
                int base = (rowOff + c0 + c) * stride + colOff + r0;
                for (int r = 0; r < h; r++) {
                    buf[r * w + c] = in[base + r];
                }
            }
        }
        return buf;
    }
}
