package io.dask4j.array;

import io.dask4j.runtime.client.TaskGraph;

import java.util.ArrayList;
import java.util.List;

/**
 * The operations that change which values sit in which block: slicing (a view, fused like a
 * transpose), rechunking (a task per new block copying rectangles out of the old blocks that overlap
 * it) and the blocked matrix product. Stateless; called on the thread building the graph.
 */
final class Layouts {
    private Layouts() {
    }

    static DArray slice(DArray a, int r0, int r1, int c0, int c1) {
        Chunks ch = a.chunks;
        if (r0 < 0 || r1 > ch.rows() || r0 > r1 || c0 < 0 || c1 > ch.cols() || c0 > c1) {
            throw new IndexOutOfBoundsException("slice [" + r0 + ", " + r1 + ") x [" + c0 + ", " + c1
                    + ") is reversed or outside an array of shape " + ch.shapeText());
        }
        int bi0 = ch.blockOfRow(r0);
        int bj0 = ch.blockOfCol(c0);
        int[] rowSizes = sizesWithin(ch, true, r0, r1);
        int[] colSizes = sizesWithin(ch, false, c0, c1);
        Chunks out = ch.ndim() == 1 ? Chunks.of1d(colSizes, c1 - c0) : Chunks.of2d(rowSizes, colSizes, r1 - r0, c1 - c0);
        int nslots = a.slots.size();
        int[][] views = new int[out.blocks()][];
        for (int i = 0; i < out.blockRows(); i++) {
            int oi = bi0 + i;
            int dr = (int) Math.max(0, r0 - ch.rowStart(oi));
            for (int j = 0; j < out.blockCols(); j++) {
                int oj = bj0 + j;
                int dc = (int) Math.max(0, c0 - ch.colStart(oj));
                int[] v = a.views[oi * ch.blockCols() + oj].clone();
                for (int s = 0; s < nslots; s++) {
                    boolean t = v[4 * s + 3] != 0;
                    v[4 * s + 1] += t ? dc : dr;
                    v[4 * s + 2] += t ? dr : dc;
                }
                views[i * out.blockCols() + j] = v;
            }
        }
        return new DArray(out, a.slots, a.expr, views);
    }

    private static int[] sizesWithin(Chunks ch, boolean rows, long from, long to) {
        if (from == to) {
            return new int[]{0}; // an empty slice, as NumPy's: one empty block, viewing the block at its start
        }
        int first = rows ? ch.blockOfRow(from) : ch.blockOfCol(from);
        int last = rows ? ch.blockOfRow(to - 1) : ch.blockOfCol(to - 1);
        int[] sizes = new int[last - first + 1];
        for (int b = first; b <= last; b++) {
            long start = rows ? ch.rowStart(b) : ch.colStart(b);
            long end = start + (rows ? ch.rowSize(b) : ch.colSize(b));
            sizes[b - first] = (int) (Math.min(to, end) - Math.max(from, start));
        }
        return sizes;
    }

    static DArray rechunk(DArray a, Chunks target) {
        if (target.ndim() != a.ndim() || target.rows() != a.chunks.rows() || target.cols() != a.chunks.cols()) {
            throw new IllegalArgumentException("cannot rechunk " + a.chunks.shapeText() + " into chunks of shape " + target.shapeText());
        }
        Source src = a.materialize();
        Chunks old = src.chunks;
        Source.Builder out = new Source.Builder("rechunk", target).dependsOn(List.of(src));
        for (int bi = 0; bi < target.blockRows(); bi++) {
            long R0 = target.rowStart(bi);
            long R1 = R0 + target.rowSize(bi);
            for (int bj = 0; bj < target.blockCols(); bj++) {
                long C0 = target.colStart(bj);
                long C1 = C0 + target.colSize(bj);
                int b = bi * target.blockCols() + bj;
                int i0 = old.blockOfRow(R0);
                int i1 = old.blockOfRow(Math.max(R0, R1 - 1));
                int j0 = old.blockOfCol(C0);
                int j1 = old.blockOfCol(Math.max(C0, C1 - 1));
                // An unchanged block keeps its key (no copy), also when a persisted array holds it: compute
                // and persist take held keys as outputs.
                if (i0 == i1 && j0 == j1 && old.rowStart(i0) == R0 && old.colStart(j0) == C0
                        && old.rowSize(i0) == R1 - R0 && old.colSize(j0) == C1 - C0) {
                    out.blockIs(b, src.keys[i0 * old.blockCols() + j0]);
                    continue;
                }
                List<Integer> geometry = new ArrayList<>(List.of(target.rowSize(bi), target.colSize(bj), 0));
                List<Object> refs = new ArrayList<>();
                for (int i = i0; i <= i1; i++) {
                    long rs = Math.max(R0, old.rowStart(i));
                    long re = Math.min(R1, old.rowStart(i) + old.rowSize(i));
                    for (int j = j0; j <= j1; j++) {
                        long cs = Math.max(C0, old.colStart(j));
                        long ce = Math.min(C1, old.colStart(j) + old.colSize(j));
                        if (re <= rs || ce <= cs) {
                            continue;
                        }
                        geometry.addAll(List.of(old.colSize(j), (int) (rs - old.rowStart(i)), (int) (cs - old.colStart(j)),
                                (int) (rs - R0), (int) (cs - C0), (int) (re - rs), (int) (ce - cs)));
                        refs.add(TaskGraph.ref(src.keys[i * old.blockCols() + j]));
                    }
                }
                geometry.set(2, refs.size());
                Object[] args = new Object[1 + refs.size()];
                args[0] = geometry.stream().mapToInt(Integer::intValue).toArray();
                for (int p = 0; p < refs.size(); p++) {
                    args[1 + p] = refs.get(p);
                }
                out.block(b, ArrayTasks.RECHUNK, args);
            }
        }
        return DArray.of(out.build());
    }

    static DArray matmul(DArray a, DArray b, int fanIn) {
        if (a.ndim() != 2 || b.ndim() != 2) {
            throw new IllegalArgumentException("matmul needs two 2-D arrays");
        }
        if (a.chunks.cols() != b.chunks.rows()) {
            throw new IllegalArgumentException("cannot multiply " + a.chunks.shapeText() + " by " + b.chunks.shapeText());
        }
        if (fanIn < 2) {
            throw new IllegalArgumentException("fan-in must be at least 2, got " + fanIn);
        }
        Source left = a.materialize();
        Chunks want = Chunks.of2d(a.chunks.colSizes(), b.chunks.colSizes(), b.chunks.rows(), b.chunks.cols());
        Source right = b.rechunk(want).materialize();
        Chunks lc = left.chunks;
        Chunks rc = right.chunks;
        Chunks outChunks = Chunks.of2d(lc.rowSizes(), rc.colSizes(), lc.rows(), rc.cols());
        Source.Builder out = new Source.Builder("matmul", outChunks).dependsOn(List.of(left, right));
        int nk = lc.blockCols();
        for (int i = 0; i < outChunks.blockRows(); i++) {
            for (int j = 0; j < outChunks.blockCols(); j++) {
                List<String> partials = new ArrayList<>();
                for (int k0 = 0; k0 < nk; k0 += fanIn) {
                    int count = Math.min(fanIn, nk - k0);
                    int[] g = new int[3 + count];
                    g[0] = lc.rowSize(i);
                    g[1] = rc.colSize(j);
                    g[2] = count;
                    Object[] args = new Object[1 + 2 * count];
                    args[0] = g;
                    for (int p = 0; p < count; p++) {
                        int k = k0 + p;
                        g[3 + p] = lc.colSize(k);
                        args[1 + p] = TaskGraph.ref(left.keys[i * nk + k]);
                        args[1 + count + p] = TaskGraph.ref(right.keys[k * rc.blockCols() + j]);
                    }
                    String key = out.name() + "-p" + i + "," + j + "," + (k0 / fanIn);
                    out.task(key, ArrayTasks.MATMUL, args);
                    partials.add(key);
                }
                out.blockIs(i * outChunks.blockCols() + j, Reductions.tree(out, partials, ReduceOp.SUM, fanIn, "-t" + i + "," + j));
            }
        }
        return DArray.of(out.build());
    }
}
