package io.dask4j.array;

import io.dask4j.runtime.client.Client;
import io.dask4j.runtime.client.RemoteTaskException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/**
 * One test body per array behaviour, compared with {@link Reference} (exact for elementwise work,
 * 1e-9 relative for reductions); thin subclasses run it over each transport.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
abstract class ArrayContract {
    static final int R = 37;
    static final int C = 53;

    /** A client of a cluster shared by the tests of the subclass. */
    abstract Client client();

    static void assertClose(double actual, double expected) {
        assertThat(actual).isCloseTo(expected, within(1e-9 * Math.max(1, Math.abs(expected))));
    }

    static void assertClose(double[] actual, double[] expected) {
        assertThat(actual).hasSameSizeAs(expected);
        for (int i = 0; i < expected.length; i++) {
            assertClose(actual[i], expected[i]);
        }
    }

    @Test
    void randomValuesDependOnlyOnTheSeedNotOnTheChunking() {
        double[] a = DArrays.random(R, C, ChunkSpec.of(10, 16), 7).computeVector(client());
        double[] b = DArrays.random(R, C, ChunkSpec.of(7), 7).computeVector(client());
        assertThat(a).isEqualTo(b).isEqualTo(Reference.random(R, C, 7));
        assertThat(java.util.Arrays.stream(a).allMatch(v -> v >= 0 && v < 1)).isTrue();
        assertThat(DArrays.random(R, C, ChunkSpec.of(10), 8).computeVector(client())).isNotEqualTo(a);
    }

    @Test
    void elementwiseArithmeticMatchesTheReferenceExactly() {
        DArray a = DArrays.random(R, C, ChunkSpec.of(10, 16), 1);
        DArray b = DArrays.random(R, C, ChunkSpec.of(10, 16), 2);
        double[] ra = Reference.random(R, C, 1);
        double[] rb = Reference.random(R, C, 2);
        DArray e = a.add(b).multiply(2).subtract(b.divide(a.add(1))).negate().abs().sqrt().exp()
                .add(a.multiply(b)).maximum(b).minimum(a.add(3)).pow(1.5).rsubtract(10).rdivide(4);
        double[] expected = new double[ra.length];
        for (int i = 0; i < ra.length; i++) {
            double x = ra[i];
            double y = rb[i];
            double v = Math.exp(Math.sqrt(Math.abs(-((x + y) * 2 - y / (x + 1))))) + x * y;
            v = Math.pow(Math.min(Math.max(v, y), x + 3), 1.5);
            expected[i] = 4 / (10 - v);
        }
        assertThat(e.computeVector(client())).isEqualTo(expected);
    }

    @Test
    void arraysWithDifferentChunksAreRechunkedToCombine() {
        DArray a = DArrays.random(R, C, ChunkSpec.of(10, 16), 1);
        DArray b = DArrays.random(R, C, ChunkSpec.of(6, 20), 2);
        double[] expected = Reference.zip(Reference.random(R, C, 1), Reference.random(R, C, 2), Double::sum);
        assertThat(a.add(b).computeVector(client())).isEqualTo(expected);
        assertThat(a.add(b).chunks()).isEqualTo(a.chunks());
    }

    @Test
    void theSeedWorkloadMatchesTheReference() {
        int n = 41;
        DArray x = DArrays.random(n, n, ChunkSpec.of(10), 5);
        double[] rx = Reference.random(n, n, 5);
        double[] y = Reference.transpose(Reference.zip(rx, Reference.transpose(rx, n, n), Double::sum), n, n);
        assertThat(x.add(x.T()).transpose().computeVector(client())).isEqualTo(y);
        assertClose(x.add(x.T()).transpose().sum().compute(client()), Reference.reduce(y, Double::sum, 0));
    }

    @Test
    void transposeOfARectangularArrayWithRaggedChunksIsExact() {
        DArray x = DArrays.random(R, C, ChunkSpec.of(10, 16), 3);
        Matrix t = x.transpose().compute(client());
        assertThat(t.rows()).isEqualTo(C);
        assertThat(t.cols()).isEqualTo(R);
        assertThat(t.data()).isEqualTo(Reference.transpose(Reference.random(R, C, 3), R, C));
        assertThat(x.T().T().computeVector(client())).isEqualTo(Reference.random(R, C, 3));
    }

    @Test
    void wholeArrayReductionsMatchTheReference() {
        DArray x = DArrays.random(R, C, ChunkSpec.of(10, 16), 4).subtract(0.5);
        double[] rx = Reference.map(Reference.random(R, C, 4), v -> v - 0.5);
        double sum = Reference.reduce(rx, Double::sum, 0);
        assertClose(x.sum().compute(client()), sum);
        assertClose(x.mean().compute(client()), sum / rx.length);
        assertThat(x.min().compute(client())).isEqualTo(Reference.reduce(rx, Math::min, Double.POSITIVE_INFINITY));
        assertThat(x.max().compute(client())).isEqualTo(Reference.reduce(rx, Math::max, Double.NEGATIVE_INFINITY));
        assertClose(x.reduce("sum", 2).compute(client()), sum);
        assertClose(x.reduce("mean", 3).compute(client()), sum / rx.length);
        assertClose(x.reduce("MEAN", 3).compute(client()), sum / rx.length);   // the name in any case, as the op
    }

    @Test
    void axisReductionsMatchTheReference() {
        DArray x = DArrays.random(R, C, ChunkSpec.of(10, 16), 6);
        double[] rx = Reference.random(R, C, 6);
        for (int axis = 0; axis <= 1; axis++) {
            double[] sums = Reference.reduce(rx, R, C, axis, Double::sum, 0);
            int count = axis == 0 ? R : C;
            assertClose(x.sum(axis).computeVector(client()), sums);
            assertClose(x.reduce("sum", axis, 2).computeVector(client()), sums);
            assertClose(x.mean(axis).computeVector(client()), Reference.map(sums, v -> v / count));
            assertClose(x.reduce("Mean", axis, 2).computeVector(client()), Reference.map(sums, v -> v / count));
            assertThat(x.min(axis).computeVector(client())).isEqualTo(Reference.reduce(rx, R, C, axis, Math::min, Double.POSITIVE_INFINITY));
            assertThat(x.max(axis).computeVector(client())).isEqualTo(Reference.reduce(rx, R, C, axis, Math::max, Double.NEGATIVE_INFINITY));
        }
        assertThat(x.sum(0).ndim()).isEqualTo(1);
        assertThat(x.sum(1).shape()).containsExactly(R);
    }

    @Test
    void slicesOfPlainTransposedAndCombinedArraysAreExact() {
        DArray x = DArrays.random(R, C, ChunkSpec.of(10, 16), 9);
        double[] rx = Reference.random(R, C, 9);
        assertThat(x.slice(3, 30, 5, 40).computeVector(client())).isEqualTo(Reference.slice(rx, C, 3, 30, 5, 40));
        double[] rt = Reference.transpose(rx, R, C);
        assertThat(x.T().slice(11, 50, 2, 9).computeVector(client())).isEqualTo(Reference.slice(rt, R, 11, 50, 2, 9));
        DArray s = x.slice(0, 20, 0, 20);
        double[] rs = Reference.slice(rx, C, 0, 20, 0, 20);
        assertThat(s.add(s.T()).slice(5, 15, 1, 19).computeVector(client()))
                .isEqualTo(Reference.slice(Reference.zip(rs, Reference.transpose(rs, 20, 20), Double::sum), 20, 5, 15, 1, 19));
        assertThatThrownBy(() -> x.slice(0, R + 1, 0, 1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> x.slice(5, 4, 0, 1)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void emptySlicesAreEmptyArraysAsInNumPy() {
        DArray x = DArrays.random(R, C, ChunkSpec.of(10, 16), 9);
        DArray noRows = x.slice(10, 10, 0, C);   // on a chunk boundary
        assertThat(noRows.shape()).containsExactly(0, C);
        assertThat(noRows.computeVector(client())).isEmpty();
        assertThat(noRows.sum().compute(client())).isZero();
        assertThat(noRows.sum(0).computeVector(client())).containsOnly(0.0).hasSize(C);
        DArray noCols = x.add(1).slice(5, 15, 7, 7);   // inside a chunk, after elementwise work
        assertThat(noCols.shape()).containsExactly(10, 0);
        assertThat(noCols.T().computeVector(client())).isEmpty();
        assertThat(x.slice(R, R, C, C).shape()).containsExactly(0, 0);
        DArray v = DArrays.arange(100, ChunkSpec.of(30));
        assertThat(v.slice(100, 100).computeVector(client())).isEmpty();
        assertThat(v.slice(30, 30).sum().compute(client())).isZero();
        assertThat(DArrays.arange(0, ChunkSpec.auto()).computeVector(client())).isEmpty();
    }

    @Test
    void rechunkKeepsTheValues() {
        DArray x = DArrays.random(R, C, ChunkSpec.of(10, 16), 10);
        DArray y = x.rechunk(ChunkSpec.of(7, 9));
        assertThat(y.chunks()).isEqualTo(ChunkSpec.of(7, 9).resolve2d(R, C));
        assertThat(y.computeVector(client())).isEqualTo(Reference.random(R, C, 10));
        assertThat(x.T().rechunk(ChunkSpec.of(R)).computeVector(client())).isEqualTo(Reference.transpose(Reference.random(R, C, 10), R, C));
    }

    @Test
    void blockedMatmulMatchesTheReference() {
        DArray a = DArrays.random(23, 31, ChunkSpec.of(10), 11);
        DArray b = DArrays.random(31, 17, ChunkSpec.of(8), 12);
        double[] expected = Reference.matmul(Reference.random(23, 31, 11), Reference.random(31, 17, 12), 23, 31, 17);
        Matrix m = a.matmul(b).compute(client());
        assertThat(m.rows()).isEqualTo(23);
        assertThat(m.cols()).isEqualTo(17);
        assertClose(m.data(), expected);
        assertClose(a.matmul(b, 2).computeVector(client()), expected);
        assertThatThrownBy(() -> a.matmul(a)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void mapBlocksAppliesTheUserFunctionToEveryBlock() {
        DArray x = DArrays.arange(R, C, ChunkSpec.of(10, 16));
        double[] out = x.T().mapBlocks((block, rows, cols) -> {
            double[] r = new double[block.length];
            for (int i = 0; i < r.length; i++) {
                r[i] = block[i] * 3 + 1;
            }
            return r;
        }).computeVector(client());
        double[] idx = new double[R * C];
        for (int i = 0; i < idx.length; i++) {
            idx[i] = i;
        }
        assertThat(out).isEqualTo(Reference.map(Reference.transpose(idx, R, C), v -> v * 3 + 1));
    }

    @Test
    void aBlockFunctionReturningTheWrongSizeFailsTheComputeWithItsError() {
        DArray x = DArrays.ones(R, C, ChunkSpec.of(10, 16)).mapBlocks((block, rows, cols) -> new double[1]);
        assertThatThrownBy(() -> x.compute(client())).isInstanceOf(RemoteTaskException.class)
                .hasMessageContaining("mapBlocks function returned 1 values");
    }

    @Test
    void creationFunctionsMakeTheExpectedValues() {
        assertThat(DArrays.zeros(R, C, ChunkSpec.of(10)).computeVector(client())).containsOnly(0.0).hasSize(R * C);
        assertThat(DArrays.ones(5, ChunkSpec.of(2)).computeVector(client())).containsExactly(1, 1, 1, 1, 1);
        assertThat(DArrays.full(2, 3, 2.5, ChunkSpec.auto()).computeArray(client())).isDeepEqualTo(new double[][]{{2.5, 2.5, 2.5}, {2.5, 2.5, 2.5}});
        assertThat(DArrays.arange(7, ChunkSpec.of(3)).computeVector(client())).containsExactly(0, 1, 2, 3, 4, 5, 6);
        assertThat(DArrays.arange(1, 2, 0.25, ChunkSpec.of(3)).computeVector(client())).containsExactly(1, 1.25, 1.5, 1.75);
        double[][] local = {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}, {10, 11, 12}};
        DArray d = DArrays.fromArray(local, ChunkSpec.of(3, 2));
        assertThat(d.computeArray(client())).isDeepEqualTo(local);
        assertThat(d.T().computeArray(client())).isDeepEqualTo(new double[][]{{1, 4, 7, 10}, {2, 5, 8, 11}, {3, 6, 9, 12}});
        assertThat(DArrays.fromArray(new double[]{3, 1, 2}, ChunkSpec.of(2)).max().compute(client())).isEqualTo(3);
    }

    @Test
    void oneDimensionalArraysSliceAndReduce() {
        DArray v = DArrays.arange(100, ChunkSpec.of(30));
        assertThat(v.ndim()).isEqualTo(1);
        assertThat(v.T()).isSameAs(v);
        assertThat(v.slice(25, 65).sum().compute(client())).isEqualTo(1780.0);
        assertThat(v.mean().compute(client())).isEqualTo(49.5);
        assertThat(v.add(v).slice(98, 100).computeVector(client())).containsExactly(196, 198);
        assertThatThrownBy(() -> v.sum(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void persistedArraysServeRepeatedComputationsThatEachComputeAnew() throws Exception {
        DArray x = DArrays.random(40, 40, ChunkSpec.of(10), 13).persist(client()).await(Duration.ofSeconds(30));
        assertThat(x.isPersisted()).isTrue();
        assertThat(x.taskCount()).isZero();
        assertThat(x.toString()).contains("shape=(40, 40)").contains("persisted").contains("tasks=0");
        double expected = Reference.reduce(Reference.random(40, 40, 13), Double::sum, 0) * 2;
        DScalar s = x.add(x.T()).transpose().sum();
        assertClose(s.compute(client()), expected);
        assertClose(s.compute(client()), expected);
        assertClose(x.add(x.T()).transpose().sum().compute(client()), expected);
        assertThat(x.computeVector(client())).isEqualTo(Reference.random(40, 40, 13));
        assertThat(x.persist(client())).isSameAs(x);
        assertThat(x.rechunk(ChunkSpec.explicit(new int[]{10, 30}, new int[]{10, 10, 20})).computeVector(client()))
                .isEqualTo(Reference.random(40, 40, 13));
        x.release();
    }

    @Test
    void aRechunkOfAPersistedArrayReusesItsUnchangedBlocksAndReleasingItKeepsThem() throws Exception {
        DArray x = DArrays.random(40, 40, ChunkSpec.of(10), 21).persist(client()).await(Duration.ofSeconds(30));
        double[] expected = Reference.random(40, 40, 21);
        DArray y = x.rechunk(ChunkSpec.explicit(new int[]{10, 30}, new int[]{10, 10, 20}));
        assertThat(y.taskCount()).isEqualTo(4);   // blocks (0, 0) and (0, 1) are x's own
        DArray p = y.persist(client()).await(Duration.ofSeconds(30));
        assertThat(p.computeVector(client())).isEqualTo(expected);
        p.release();
        assertThat(x.computeVector(client())).isEqualTo(expected);
        x.release();
    }

    @Test
    void shapeMismatchesAreRefusedWhileBuilding() {
        DArray a = DArrays.ones(4, 5, ChunkSpec.of(2));
        assertThatThrownBy(() -> a.add(DArrays.ones(5, 4, ChunkSpec.of(2)))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("(4, 5)");
        assertThatThrownBy(() -> a.sum(2)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> a.reduce("median", 4)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> a.reduce("sum", 1)).isInstanceOf(IllegalArgumentException.class);
    }

    // ---- files: written by the workers, read back by the workers -----------------------------------------

    @Test
    void anArrayWrittenAsZarrNpyAndRawReadsBackExactlyInAnyChunking() throws Exception {
        inTempDir(dir -> {
            DArray a = DArrays.random(R, C, ChunkSpec.of(10, 16), 11);
            double[] expected = Reference.random(R, C, 11);
            a.toZarr(client(), dir.resolve("a.zarr"), WriteOptions.DEFAULT.compressedWith(io.dask4j.array.io.ZarrCompressor.zstd()));
            a.toNpy(client(), dir.resolve("a.npy"));
            a.toRaw(client(), dir.resolve("a.f8"));

            DArray z = DArrays.fromZarr(dir.resolve("a.zarr"));
            assertThat(z.chunks()).isEqualTo(a.chunks());
            assertThat(z.computeVector(client())).isEqualTo(expected);
            assertThat(DArrays.fromZarr(dir.resolve("a.zarr"), ChunkSpec.of(7, 9)).computeVector(client())).isEqualTo(expected);
            assertThat(DArrays.fromNpy(dir.resolve("a.npy"), ChunkSpec.of(8)).computeVector(client())).isEqualTo(expected);
            assertThat(DArrays.fromRaw(dir.resolve("a.f8"), new int[]{R, C}, "float64", io.dask4j.array.io.StorageOrder.C,
                    ChunkSpec.of(R, 5)).computeVector(client())).isEqualTo(expected);
            // A file array computes like any other: the seed expression over it matches the generator's.
            DArray square = DArrays.random(40, 40, ChunkSpec.of(10), 12);
            square.toNpy(client(), dir.resolve("square.npy"));
            DArray x = DArrays.fromNpy(dir.resolve("square.npy"), ChunkSpec.of(10)).persist(client());
            assertThat(x.add(x.T()).transpose().sum().compute(client()))
                    .isEqualTo(square.add(square.T()).transpose().sum().compute(client()));
            x.release();
        });
    }

    @Test
    void writingOverAnExistingTargetNeedsTheOverwriteFlag() throws Exception {
        inTempDir(dir -> {
            DArray ones = DArrays.ones(R, C, ChunkSpec.of(10));
            ones.toZarr(client(), dir.resolve("z"));
            ones.toNpy(client(), dir.resolve("n.npy"));
            DArray twos = DArrays.full(R, C, 2.0, ChunkSpec.of(20));
            assertThatThrownBy(() -> twos.toZarr(client(), dir.resolve("z"))).isInstanceOf(io.dask4j.array.io.ArrayFileException.class)
                    .hasMessageContaining("exists");
            assertThatThrownBy(() -> twos.toNpy(client(), dir.resolve("n.npy"))).isInstanceOf(io.dask4j.array.io.ArrayFileException.class)
                    .hasMessageContaining("exists");
            assertThat(DArrays.fromZarr(dir.resolve("z")).sum().compute(client())).isEqualTo((double) R * C);

            twos.toZarr(client(), dir.resolve("z"), WriteOptions.DEFAULT.overwriting());
            twos.toNpy(client(), dir.resolve("n.npy"), WriteOptions.DEFAULT.overwriting());
            assertThat(DArrays.fromZarr(dir.resolve("z")).chunks()).isEqualTo(twos.chunks());
            assertThat(DArrays.fromZarr(dir.resolve("z")).sum().compute(client())).isEqualTo(2.0 * R * C);
            assertThat(DArrays.fromNpy(dir.resolve("n.npy")).sum().compute(client())).isEqualTo(2.0 * R * C);
        });
    }

    @Test
    void aOneDimensionalArrayRoundTripsThroughEveryFormat() throws Exception {
        inTempDir(dir -> {
            DArray v = DArrays.arange(1000, ChunkSpec.of(128));
            v.toZarr(client(), dir.resolve("v.zarr"), WriteOptions.DEFAULT.compressedWith(io.dask4j.array.io.ZarrCompressor.blosc()));
            v.toNpy(client(), dir.resolve("v.npy"));
            double[] expected = java.util.stream.IntStream.range(0, 1000).asDoubleStream().toArray();
            assertThat(DArrays.fromZarr(dir.resolve("v.zarr")).ndim()).isEqualTo(1);
            assertThat(DArrays.fromZarr(dir.resolve("v.zarr")).computeVector(client())).isEqualTo(expected);
            assertThat(DArrays.fromNpy(dir.resolve("v.npy"), ChunkSpec.of(300)).computeVector(client())).isEqualTo(expected);
        });
    }

    /** What a file test does with its own temporary directory (the contract also runs in mpi jobs, without JUnit's). */
    interface DirectoryTest {
        void run(java.nio.file.Path dir) throws Exception;
    }

    static void inTempDir(DirectoryTest test) throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("dask4j-array-files");
        try {
            test.run(dir);
        } finally {
            deleteTree(dir);
        }
    }

    static void deleteTree(java.nio.file.Path root) throws java.io.IOException {
        try (java.util.stream.Stream<java.nio.file.Path> paths = java.nio.file.Files.walk(root)) {
            for (java.nio.file.Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                java.nio.file.Files.deleteIfExists(p);
            }
        }
    }
}
