package io.dask4j.array;

import io.dask4j.runtime.cluster.LocalCluster;
import io.dask4j.runtime.client.Client;
import io.dask4j.runtime.client.DaskFuture;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;

/**
 * A lazily built, chunked array of doubles (1-D or 2-D) backed by a task graph, in the spirit of
 * {@code dask.array}. Make one with {@link DArrays}; combine them with elementwise arithmetic,
 * {@link #transpose()}, {@link #slice}, {@link #rechunk}, {@link #matmul} and reductions; nothing runs
 * until {@link #compute} or {@link #persist}.
 *
 * <pre>{@code
 * try (Client client = LocalCluster.startClient(3, 1)) {
 *     DArray x = DArrays.random(20_000, 20_000, ChunkSpec.of(2000), 42).persist(client);
 *     double s = x.add(x.T()).transpose().sum().compute(client);
 * }
 * }</pre>
 *
 * <p><b>Fusion.</b> Elementwise operations, transposes and slices do not make tasks of their own: they
 * build one fused expression per output block over the blocks of the materialized arrays below
 * ({@link BlockExpr}), evaluated tile by tile when the block is needed. So {@code (x + x.T).transpose().sum()}
 * is one task per block reading blocks {@code (i, j)} and {@code (j, i)} of {@code x} and returning that
 * block's partial sum, then a tree of combine tasks: a reduction folds the fused expression as it goes and
 * materializes nothing full-size. Rechunk, matmul, mapBlocks, compute and persist materialize what they read.
 *
 * <p>Every block is a row-major {@code double[]}; blocks travel between workers as raw frames. Task keys
 * are fresh per operation, so building the same expression again computes anew.
 *
 * <p>Immutable and thread-safe; {@code compute}/{@code persist} block the calling thread.
 */
public final class DArray {
    /**
     * Default fan-in of reduction trees whose partials are vectors or blocks (axis reductions, matmul): a
     * combine task holds this many inputs at once. Dask 2022.12 combines 4 blocks at a time ({@code split_every}).
     */
    public static final int DEFAULT_FAN_IN = 8;
    /**
     * Default fan-in of whole-array reductions ({@link #sum()}, {@link #mean()}, {@link #min()}, {@link #max()}),
     * whose partials are single doubles: a wide combine costs no memory, and each tree level it saves is a
     * round trip through the scheduler and a fetch in every computation's tail (25 blocks: one level, not two;
     * 400 blocks: two, not three).
     */
    public static final int SCALAR_FAN_IN = 32;

    final Chunks chunks;
    final List<Source> slots;
    final BlockExpr expr;
    /** Per output block: per slot {@code [source block, rowOff, colOff, transposed]}. */
    final int[][] views;

    DArray(Chunks chunks, List<Source> slots, BlockExpr expr, int[][] views) {
        this.chunks = chunks;
        this.slots = List.copyOf(slots);
        this.expr = expr;
        this.views = views;
    }

    /** The array whose blocks are exactly {@code source}'s. */
    static DArray of(Source source) {
        int[][] views = new int[source.chunks.blocks()][];
        for (int b = 0; b < views.length; b++) {
            views[b] = new int[]{b, 0, 0, 0};
        }
        return new DArray(source.chunks, List.of(source), new BlockExpr.Leaf(0), views);
    }

    // ---- metadata ------------------------------------------------------------------------------

    public int ndim() {
        return chunks.ndim();
    }

    /** {@code {rows, cols}} for 2-D, {@code {n}} for 1-D. */
    public int[] shape() {
        return chunks.ndim() == 1 ? new int[]{chunks.cols()} : new int[]{chunks.rows(), chunks.cols()};
    }

    public Chunks chunks() {
        return chunks;
    }

    /** Tasks that computing this array would run now: those its blocks need (persisted inputs count none). */
    public int taskCount() {
        Source src = materialize();
        return src.persisted() ? 0 : src.graph().sizeFor(Arrays.asList(src.keys));
    }

    /** Whether this array is exactly the blocks of a materialized source (no fused work pending). */
    boolean isPlain() {
        if (slots.size() != 1 || !(expr instanceof BlockExpr.Leaf) || !slots.getFirst().chunks.equals(chunks)) {
            return false;
        }
        for (int b = 0; b < views.length; b++) {
            int[] v = views[b];
            if (v[0] != b || v[1] != 0 || v[2] != 0 || v[3] != 0) {
                return false;
            }
        }
        return true;
    }

    public boolean isPersisted() {
        return isPlain() && slots.getFirst().persisted();
    }

    // ---- elementwise ---------------------------------------------------------------------------

    public DArray add(DArray other) {
        return zip(BinaryOp.ADD, other);
    }

    public DArray subtract(DArray other) {
        return zip(BinaryOp.SUB, other);
    }

    public DArray multiply(DArray other) {
        return zip(BinaryOp.MUL, other);
    }

    public DArray divide(DArray other) {
        return zip(BinaryOp.DIV, other);
    }

    public DArray pow(DArray other) {
        return zip(BinaryOp.POW, other);
    }

    public DArray maximum(DArray other) {
        return zip(BinaryOp.MAX, other);
    }

    public DArray minimum(DArray other) {
        return zip(BinaryOp.MIN, other);
    }

    public DArray add(double s) {
        return scalar(BinaryOp.ADD, s, false);
    }

    public DArray subtract(double s) {
        return scalar(BinaryOp.SUB, s, false);
    }

    /** {@code s - this}. */
    public DArray rsubtract(double s) {
        return scalar(BinaryOp.SUB, s, true);
    }

    public DArray multiply(double s) {
        return scalar(BinaryOp.MUL, s, false);
    }

    public DArray divide(double s) {
        return scalar(BinaryOp.DIV, s, false);
    }

    /** {@code s / this}. */
    public DArray rdivide(double s) {
        return scalar(BinaryOp.DIV, s, true);
    }

    public DArray pow(double s) {
        return scalar(BinaryOp.POW, s, false);
    }

    public DArray negate() {
        return unary(UnaryOp.NEG);
    }

    public DArray abs() {
        return unary(UnaryOp.ABS);
    }

    public DArray sqrt() {
        return unary(UnaryOp.SQRT);
    }

    public DArray exp() {
        return unary(UnaryOp.EXP);
    }

    private DArray unary(UnaryOp op) {
        return new DArray(chunks, slots, new BlockExpr.Unary(op, expr), views);
    }

    private DArray scalar(BinaryOp op, double s, boolean scalarFirst) {
        return new DArray(chunks, slots, new BlockExpr.Scalar(op, expr, s, scalarFirst), views);
    }

    /** Combines two arrays of the same shape elementwise; {@code other} is rechunked to match if its chunks differ. */
    private DArray zip(BinaryOp op, DArray other) {
        if (other.ndim() != ndim() || other.chunks.rows() != chunks.rows() || other.chunks.cols() != chunks.cols()) {
            throw new IllegalArgumentException("shapes " + chunks.shapeText() + " and " + other.chunks.shapeText() + " differ");
        }
        DArray b = other.chunks.equals(chunks) ? other : other.rechunk(chunks);
        List<Source> joined = new ArrayList<>(slots);
        joined.addAll(b.slots);
        int[][] v = new int[views.length][];
        for (int i = 0; i < v.length; i++) {
            v[i] = new int[views[i].length + b.views[i].length];
            System.arraycopy(views[i], 0, v[i], 0, views[i].length);
            System.arraycopy(b.views[i], 0, v[i], views[i].length, b.views[i].length);
        }
        return new DArray(chunks, joined, new BlockExpr.Binary(op, expr, b.expr.shift(slots.size())), v);
    }

    /** Applies {@code fn} to every block (after any fused work); {@code fn} must return a new array of the block's size. */
    public DArray mapBlocks(BlockFunction fn) {
        Source.Builder out = new Source.Builder("map-blocks", chunks).dependsOn(slots);
        for (int b = 0; b < views.length; b++) {
            out.block(b, ArrayTasks.MAP_BLOCKS, BlockViews.withInputs(this, b, fn, expr, BlockViews.geometry(this, b)));
        }
        return of(out.build());
    }

    // ---- layout --------------------------------------------------------------------------------

    /** The transpose (free: it only changes how blocks are read); a 1-D array is its own transpose. */
    public DArray transpose() {
        if (ndim() == 1) {
            return this;
        }
        Chunks t = chunks.transposed();
        int[][] v = new int[views.length][];
        for (int i = 0; i < t.blockRows(); i++) {
            for (int j = 0; j < t.blockCols(); j++) {
                int[] old = views[j * chunks.blockCols() + i].clone();
                for (int s = 0; s < slots.size(); s++) {
                    old[4 * s + 3] ^= 1;
                }
                v[i * t.blockCols() + j] = old;
            }
        }
        return new DArray(t, slots, expr, v);
    }

    /** Same as {@link #transpose()}, named as in NumPy. */
    public DArray T() {
        return transpose();
    }

    /**
     * Rows {@code [r0, r1)} and columns {@code [c0, c1)}; keeps the chunk boundaries inside the range. An empty
     * range ({@code r0 == r1}) gives an empty array, as in NumPy; a reversed or out-of-range one is an
     * {@link IndexOutOfBoundsException}.
     */
    public DArray slice(int r0, int r1, int c0, int c1) {
        if (ndim() != 2) {
            throw new IllegalArgumentException("slice(r0, r1, c0, c1) needs a 2-D array; use slice(start, stop)");
        }
        return Layouts.slice(this, r0, r1, c0, c1);
    }

    /** Elements {@code [start, stop)} of a 1-D array. */
    public DArray slice(int start, int stop) {
        if (ndim() != 1) {
            throw new IllegalArgumentException("slice(start, stop) needs a 1-D array; use slice(r0, r1, c0, c1)");
        }
        return Layouts.slice(this, 0, 1, start, stop);
    }

    public DArray rechunk(ChunkSpec spec) {
        return rechunk(ndim() == 1 ? spec.resolve1d(chunks.cols()) : spec.resolve2d(chunks.rows(), chunks.cols()));
    }

    /** This array cut into the chunks of {@code target} (same shape). */
    public DArray rechunk(Chunks target) {
        if (target.equals(chunks)) {
            return this;
        }
        return Layouts.rechunk(this, target);
    }

    /** The matrix product {@code this x other} of 2-D arrays, blockwise; {@code other}'s row chunks follow this one's column chunks. */
    public DArray matmul(DArray other) {
        return matmul(other, DEFAULT_FAN_IN);
    }

    public DArray matmul(DArray other, int fanIn) {
        return Layouts.matmul(this, other, fanIn);
    }

    // ---- reductions ----------------------------------------------------------------------------

    public DScalar sum() {
        return Reductions.all(this, ReduceOp.SUM, SCALAR_FAN_IN, false);
    }

    public DScalar min() {
        return Reductions.all(this, ReduceOp.MIN, SCALAR_FAN_IN, false);
    }

    public DScalar max() {
        return Reductions.all(this, ReduceOp.MAX, SCALAR_FAN_IN, false);
    }

    public DScalar mean() {
        return Reductions.all(this, ReduceOp.SUM, SCALAR_FAN_IN, true);
    }

    /** The whole-array reduction {@code op} ("sum", "mean", "min" or "max") with a tree of fan-in {@code fanIn}. */
    public DScalar reduce(String op, int fanIn) {
        return Reductions.all(this, Reductions.op(op), fanIn, Reductions.isMean(op));
    }

    /** Sum over {@code axis} (0: down the rows, one value per column; 1: along each row) as a 1-D array. */
    public DArray sum(int axis) {
        return Reductions.axis(this, ReduceOp.SUM, axis, DEFAULT_FAN_IN, false);
    }

    public DArray min(int axis) {
        return Reductions.axis(this, ReduceOp.MIN, axis, DEFAULT_FAN_IN, false);
    }

    public DArray max(int axis) {
        return Reductions.axis(this, ReduceOp.MAX, axis, DEFAULT_FAN_IN, false);
    }

    public DArray mean(int axis) {
        return Reductions.axis(this, ReduceOp.SUM, axis, DEFAULT_FAN_IN, true);
    }

    /** The reduction {@code op} ("sum", "mean", "min" or "max") over {@code axis} with a tree of fan-in {@code fanIn}. */
    public DArray reduce(String op, int axis, int fanIn) {
        return Reductions.axis(this, Reductions.op(op), axis, fanIn, Reductions.isMean(op));
    }

    // ---- running -------------------------------------------------------------------------------

    /**
     * Computes the blocks and keeps them on the workers; returns an array backed by their futures. Does not
     * wait. Blocks are laid out {@link BlockLayout#MIRRORS_TOGETHER}.
     */
    public DArray persist(Client client) {
        return persist(client, BlockLayout.MIRRORS_TOGETHER);
    }

    /** Like {@link #persist(Client)}, with the blocks laid out over the workers as {@code layout} says. */
    public DArray persist(Client client, BlockLayout layout) {
        if (isPersisted()) {
            return this;
        }
        Source src = materialize();
        int[] order = switch (layout) {
            case MIRRORS_TOGETHER -> BlockOrder.mirrorsTogether(chunks);
            case ROW_MAJOR -> BlockOrder.rowMajor(chunks);
        };
        String[] outputs = new String[order.length];
        for (int i = 0; i < order.length; i++) {
            outputs[i] = src.keys[order[i]];
        }
        Map<String, DaskFuture<Object>> held = client.persist(src.graph(), outputs);
        return of(src.persistedAs(held, client));
    }

    /** Waits until every block of a persisted array is in memory; a failed block raises its remote error. */
    public DArray await(Duration timeout) throws TimeoutException {
        if (!isPersisted()) {
            throw new IllegalStateException("await() needs a persisted array; call persist(client) first");
        }
        Source s = slots.getFirst();
        List<DaskFuture<Object>> fs = s.blockFutures();
        s.client.waitAll(fs, timeout);
        for (DaskFuture<Object> f : fs) {
            Throwable t = f.exception();
            if (t instanceof RuntimeException re) {
                throw re;
            }
        }
        return this;
    }

    /** Lets the workers drop the blocks of a persisted array (no-op otherwise). */
    public void release() {
        if (isPersisted()) {
            slots.getFirst().blockFutures().forEach(DaskFuture::release);
        }
    }

    /** Computes the array and brings it here as a row-major {@link Matrix} (1-D arrays are one row). */
    public Matrix compute(Client client) {
        Source src = materialize();
        List<Object> blocks = new ArrayList<>(src.keys.length);
        if (src.persisted()) {
            blocks.addAll(client.gather(src.blockFutures()));
        } else {
            Map<String, Object> values = client.compute(src.graph(), src.keys);
            for (String k : src.keys) {
                blocks.add(values.get(k));
            }
        }
        return Matrix.assemble(chunks, blocks);
    }

    /** Computes a 1-D array (or any array, flattened row-major) into a {@code double[]}. */
    public double[] computeVector(Client client) {
        return compute(client).data();
    }

    /** Computes the array into a {@code double[rows][cols]}. */
    public double[][] computeArray(Client client) {
        return compute(client).toArray();
    }

    /**
     * Writes the array as a Zarr v2 array in directory {@code dir} (little-endian float64, C order, chunks as
     * this array's blocks; an array with irregular blocks is rechunked to its first block's size first). Each
     * worker writes the chunks it holds; the {@code .zarray} is written last, once every chunk is, so a failed
     * write never leaves a valid-looking array. Blocks until done.
     *
     * @throws io.dask4j.array.io.ArrayFileException if {@code dir} exists and {@code options} do not allow
     *     overwriting, or it is not a Zarr array, or writing fails
     */
    public void toZarr(Client client, java.nio.file.Path dir, WriteOptions options) {
        ArrayFiles.toZarr(this, client, dir, options);
    }

    /** {@link #toZarr(Client, java.nio.file.Path, WriteOptions)} with {@link WriteOptions#DEFAULT}. */
    public void toZarr(Client client, java.nio.file.Path dir) {
        toZarr(client, dir, WriteOptions.DEFAULT);
    }

    /**
     * Writes the array as one NumPy {@code .npy} file ({@code <f8}, C order). The workers write their blocks in
     * place into a temporary file beside {@code file}, which is renamed to {@code file} once all are written.
     */
    public void toNpy(Client client, java.nio.file.Path file, WriteOptions options) {
        ArrayFiles.toFile(this, client, file, options, true);
    }

    /** {@link #toNpy(Client, java.nio.file.Path, WriteOptions)} with {@link WriteOptions#DEFAULT}. */
    public void toNpy(Client client, java.nio.file.Path file) {
        toNpy(client, file, WriteOptions.DEFAULT);
    }

    /** Writes the elements alone, little-endian float64 in C order, as {@link #toNpy} does. */
    public void toRaw(Client client, java.nio.file.Path file, WriteOptions options) {
        ArrayFiles.toFile(this, client, file, options, false);
    }

    /** {@link #toRaw(Client, java.nio.file.Path, WriteOptions)} with {@link WriteOptions#DEFAULT}. */
    public void toRaw(Client client, java.nio.file.Path file) {
        toRaw(client, file, WriteOptions.DEFAULT);
    }

    /** The materialized source of this array: itself when plain, else a fused task per block. */
    Source materialize() {
        if (isPlain()) {
            return slots.getFirst();
        }
        Source.Builder out = new Source.Builder("fused", chunks).dependsOn(slots);
        for (int b = 0; b < views.length; b++) {
            out.block(b, ArrayTasks.FUSED, BlockViews.withInputs(this, b, expr, BlockViews.geometry(this, b)));
        }
        return out.build();
    }

    @Override
    public String toString() {
        return "DArray[shape=" + chunks.shapeText() + ", chunks=" + chunks + ", blocks=" + chunks.blocks()
                + ", tasks=" + taskCount() + (isPersisted() ? ", persisted" : "") + "]";
    }
}
