package io.dask4j.array;

import io.dask4j.runtime.client.TaskGraph;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Builds reduction graphs: one task per block computing the block's partial (fused with any pending
 * elementwise work, so nothing full-size is materialized), then a tree of combine tasks with a
 * configurable fan-in. Partials are {@code double[]} ({@code [value]} for whole-array reductions, a
 * vector per block row or column for axis reductions) and travel as raw frames. Stateless.
 */
final class Reductions {
    private Reductions() {
    }

    static ReduceOp op(String name) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "sum", "mean" -> ReduceOp.SUM;
            case "min" -> ReduceOp.MIN;
            case "max" -> ReduceOp.MAX;
            default -> throw new IllegalArgumentException("unknown reduction '" + name + "' (sum, mean, min, max)");
        };
    }

    /** Whether {@code name} asks for a mean (a sum divided by the count), in any case as {@link #op} takes it. */
    static boolean isMean(String name) {
        return name.toLowerCase(Locale.ROOT).equals("mean");
    }

    static DScalar all(DArray a, ReduceOp op, int fanIn, boolean mean) {
        checkFanIn(fanIn);
        checkNotEmpty(op, (long) a.chunks.rows() * a.chunks.cols(), a);
        Source.Builder out = new Source.Builder(op.name().toLowerCase(Locale.ROOT), Chunks.of1d(new int[]{1}, 1)).dependsOn(a.slots);
        List<String> partials = new ArrayList<>();
        for (int b = 0; b < a.chunks.blocks(); b++) {
            String key = out.name() + "-p" + b;
            out.task(key, ArrayTasks.REDUCE, BlockViews.withInputs(a, b, op, -1, a.expr, BlockViews.geometry(a, b)));
            partials.add(key);
        }
        out.blockIs(0, tree(out, partials, op, fanIn, "-t"));
        long count = (long) a.chunks.rows() * a.chunks.cols();
        return new DScalar(out.build(), mean ? count : 1, a.chunks.shapeText());
    }

    static DArray axis(DArray a, ReduceOp op, int axis, int fanIn, boolean mean) {
        checkFanIn(fanIn);
        if (a.ndim() != 2 || (axis != 0 && axis != 1)) {
            throw new IllegalArgumentException("axis reductions need a 2-D array and axis 0 or 1 (got ndim "
                    + a.ndim() + ", axis " + axis + "); reduce a 1-D array with sum(), min(), max() or mean()");
        }
        Chunks ch = a.chunks;
        checkNotEmpty(op, axis == 0 ? ch.rows() : ch.cols(), a);
        int[] sizes = axis == 0 ? ch.colSizes() : ch.rowSizes();
        Chunks outChunks = Chunks.of1d(sizes, axis == 0 ? ch.cols() : ch.rows());
        Source.Builder out = new Source.Builder(op.name().toLowerCase(Locale.ROOT) + "-axis" + axis, outChunks).dependsOn(a.slots);
        int lines = sizes.length;
        int across = axis == 0 ? ch.blockRows() : ch.blockCols();
        for (int l = 0; l < lines; l++) {
            List<String> partials = new ArrayList<>();
            for (int k = 0; k < across; k++) {
                int b = axis == 0 ? k * ch.blockCols() + l : l * ch.blockCols() + k;
                String key = out.name() + "-p" + b;
                out.task(key, ArrayTasks.REDUCE, BlockViews.withInputs(a, b, op, axis, a.expr, BlockViews.geometry(a, b)));
                partials.add(key);
            }
            out.blockIs(l, tree(out, partials, op, fanIn, "-t" + l));
        }
        DArray result = DArray.of(out.build());
        return mean ? result.divide(axis == 0 ? ch.rows() : ch.cols()) : result;
    }

    /**
     * Adds combine tasks reducing {@code keys} in groups of {@code fanIn}, level by level, and returns
     * the root's key (the single input itself when there is only one).
     */
    static String tree(Source.Builder out, List<String> keys, ReduceOp op, int fanIn, String prefix) {
        List<String> level = keys;
        int depth = 0;
        while (level.size() > 1) {
            List<String> next = new ArrayList<>((level.size() + fanIn - 1) / fanIn);
            for (int g = 0; g < level.size(); g += fanIn) {
                int n = Math.min(fanIn, level.size() - g);
                if (n == 1) {
                    next.add(level.get(g));
                    continue;
                }
                Object[] args = new Object[1 + n];
                args[0] = op;
                for (int i = 0; i < n; i++) {
                    args[1 + i] = TaskGraph.ref(level.get(g + i));
                }
                String key = out.name() + prefix + "-" + depth + "-" + (g / fanIn);
                out.task(key, ArrayTasks.COMBINE, args);
                next.add(key);
            }
            level = next;
            depth++;
        }
        return level.getFirst();
    }

    /**
     * min and max of nothing have no value (NumPy raises too); the identities they start from, +/-infinity,
     * would otherwise come back as if they were data. A sum of nothing is 0 and a mean NaN, as in NumPy.
     */
    private static void checkNotEmpty(ReduceOp op, long reduced, DArray a) {
        if (reduced == 0 && op != ReduceOp.SUM) {
            throw new IllegalArgumentException(op.name().toLowerCase(Locale.ROOT) + " of an empty extent of an array of shape "
                    + a.chunks.shapeText() + " has no value");
        }
    }

    private static void checkFanIn(int fanIn) {
        if (fanIn < 2) {
            throw new IllegalArgumentException("fan-in must be at least 2, got " + fanIn);
        }
    }
}
