package io.dask4j.array;

import io.dask4j.runtime.client.TaskGraph;

/**
 * Turns an array's per-block views into task arguments: the {@link TileEvaluator} geometry of a block
 * and the references to the input blocks it reads. Stateless.
 */
final class BlockViews {
    private BlockViews() {
    }

    /** The evaluator geometry of output block {@code b}: {@code [rows, cols, per slot: stride, rowOff, colOff, t]}. */
    static int[] geometry(DArray a, int b) {
        int[] v = a.views[b];
        int[] g = new int[2 + 4 * a.slots.size()];
        g[0] = a.chunks.rowSize(b / a.chunks.blockCols());
        g[1] = a.chunks.colSize(b % a.chunks.blockCols());
        for (int s = 0; s < a.slots.size(); s++) {
            Chunks src = a.slots.get(s).chunks;
            g[2 + 4 * s] = src.colSize(v[4 * s] % src.blockCols());
            g[3 + 4 * s] = v[4 * s + 1];
            g[4 + 4 * s] = v[4 * s + 2];
            g[5 + 4 * s] = v[4 * s + 3];
        }
        return g;
    }

    /** {@code leading} followed by a reference to each slot's input block of output block {@code b}. */
    static Object[] withInputs(DArray a, int b, Object... leading) {
        Object[] args = new Object[leading.length + a.slots.size()];
        System.arraycopy(leading, 0, args, 0, leading.length);
        for (int s = 0; s < a.slots.size(); s++) {
            args[leading.length + s] = TaskGraph.ref(a.slots.get(s).keys[a.views[b][4 * s]]);
        }
        return args;
    }
}
