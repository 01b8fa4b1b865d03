package io.dask4j.array;

import io.dask4j.runtime.task.TaskFunction;

import java.util.Arrays;

/**
 * The task functions of array graphs. Enum constants: each is serialized once per client and cached by
 * the workers, and a task carries only its small arguments (numbers, geometry, expression, and the keys
 * of its input blocks, which arrive as {@code double[]}s). Every block result is a plain row-major
 * {@code double[]}, so blocks travel as raw frames. No task modifies an input array: in-process
 * clusters hand stored arrays to tasks without copying. Called on worker task threads.
 */
enum ArrayTasks implements TaskFunction<Object> {
    /** (long seed, long rowStart, long colStart, int rows, int cols, long totalCols) -> uniform [0, 1). */
    RANDOM {
        @Override
        public Object apply(Object... a) {
            long seedBase = CounterRandom.base((Long) a[0]);
            long rowStart = (Long) a[1];
            long colStart = (Long) a[2];
            int rows = (Integer) a[3];
            int cols = (Integer) a[4];
            long totalCols = (Long) a[5];
            double[] out = new double[rows * cols];
            for (int r = 0; r < rows; r++) {
                long index = (rowStart + r) * totalCols + colStart;
                int base = r * cols;
                for (int c = 0; c < cols; c++) {
                    out[base + c] = CounterRandom.uniform(seedBase, index + c);
                }
            }
            return out;
        }
    },
    /** (double value, int n) -> n copies of value. */
    FULL {
        @Override
        public Object apply(Object... a) {
            double[] out = new double[(Integer) a[1]];
            double v = (Double) a[0];
            if (v != 0) {
                Arrays.fill(out, v);
            }
            return out;
        }
    },
    /** (double[] data) -> data: a block embedded in the graph. */
    CONSTANT {
        @Override
        public Object apply(Object... a) {
            return a[0];
        }
    },
    /** (double start, double step, long rowStart, long colStart, int rows, int cols, long totalCols) -> start + step * row-major index. */
    ARANGE {
        @Override
        public Object apply(Object... a) {
            double start = (Double) a[0];
            double step = (Double) a[1];
            long rowStart = (Long) a[2];
            long colStart = (Long) a[3];
            int rows = (Integer) a[4];
            int cols = (Integer) a[5];
            long totalCols = (Long) a[6];
            double[] out = new double[rows * cols];
            for (int r = 0; r < rows; r++) {
                long index = (rowStart + r) * totalCols + colStart;
                for (int c = 0; c < cols; c++) {
                    out[r * cols + c] = start + step * (index + c);
                }
            }
            return out;
        }
    },
    /** (BlockExpr, int[] geometry, blocks...) -> the evaluated block. */
    FUSED {
        @Override
        public Object apply(Object... a) {
            return new TileEvaluator((BlockExpr) a[0], (int[]) a[1], blocks(a, 2)).materialize();
        }
    },
    /** (ReduceOp, int axis, BlockExpr, int[] geometry, blocks...) -> the block's partial reduction. */
    REDUCE {
        @Override
        public Object apply(Object... a) {
            return new TileEvaluator((BlockExpr) a[2], (int[]) a[3], blocks(a, 4)).reduce((ReduceOp) a[0], (Integer) a[1]);
        }
    },
    /** (ReduceOp, partials...) -> the partials combined elementwise (a new array). */
    COMBINE {
        @Override
        public Object apply(Object... a) {
            ReduceOp op = (ReduceOp) a[0];
            double[] acc = ((double[]) a[1]).clone();
            for (int i = 2; i < a.length; i++) {
                op.combineInto(acc, (double[]) a[i]);
            }
            return acc;
        }
    },
    /** (BlockFunction, BlockExpr, int[] geometry, blocks...) -> the user's function of the evaluated block. */
    MAP_BLOCKS {
        @Override
        public Object apply(Object... a) {
            BlockFunction fn = (BlockFunction) a[0];
            int[] geometry = (int[]) a[2];
            double[] in = new TileEvaluator((BlockExpr) a[1], geometry, blocks(a, 3)).materialize();
            double[] out = fn.apply(in, geometry[0], geometry[1]);
            if (out == null || out.length != geometry[0] * geometry[1]) {
                throw new IllegalStateException("mapBlocks function returned " + (out == null ? "null" : out.length + " values")
                        + " for a " + geometry[0] + " x " + geometry[1] + " block");
            }
            return out;
        }
    },
    /** (int[] geometry, blocks...) -> a block assembled from rectangles of other blocks. */
    RECHUNK {
        @Override
        public Object apply(Object... a) {
            int[] g = (int[]) a[0];
            int rows = g[0];
            int cols = g[1];
            double[] out = new double[rows * cols];
            for (int p = 0; p < g[2]; p++) {
                int o = 3 + 7 * p;
                Kernels.copyRect((double[]) a[1 + p], g[o], g[o + 1], g[o + 2], out, cols, g[o + 3], g[o + 4], g[o + 5], g[o + 6]);
            }
            return out;
        }
    },
    /** (int[] {m, n, count, k sizes...}, A blocks..., B blocks...) -> sum over the pairs of A x B. */
    MATMUL {
        @Override
        public Object apply(Object... a) {
            int[] g = (int[]) a[0];
            int m = g[0];
            int n = g[1];
            int count = g[2];
            double[] out = new double[m * n];
            for (int p = 0; p < count; p++) {
                Kernels.multiplyAdd((double[]) a[1 + p], (double[]) a[1 + count + p], out, m, g[3 + p], n);
            }
            return out;
        }
    };

    private static double[][] blocks(Object[] a, int from) {
        double[][] out = new double[a.length - from][];
        for (int i = from; i < a.length; i++) {
            out[i - from] = (double[]) a[i];
        }
        return out;
    }
}
