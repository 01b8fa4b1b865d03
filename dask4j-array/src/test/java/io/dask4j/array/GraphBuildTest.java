package io.dask4j.array;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Graph construction without a cluster: fusion, task counts, fresh keys, auto chunks. */
class GraphBuildTest {

    @Test
    void theSeedWorkloadFusesIntoOneTaskPerBlockPlusATree() {
        DArray x = DArrays.random(20_000, 20_000, ChunkSpec.of(2000), 42);
        long started = System.nanoTime();
        DScalar s = x.add(x.T()).transpose().sum();
        int tasks = s.taskCount();
        double seconds = (System.nanoTime() - started) / 1e9;
        // 100 random blocks + 100 fused partial sums + a fan-in-32 tree of scalars (4 + 1)
        assertThat(tasks).isEqualTo(100 + 100 + 4 + 1);
        System.out.printf("seed graph for 20000^2 / 2000^2: %d tasks built in %.3f s%n", tasks, seconds);
    }

    @Test
    void theSmallChunkVariantBuildsItsGraph() {
        DArray x = DArrays.random(10_000, 10_000, ChunkSpec.of(500), 42);
        DScalar s = x.add(x.T()).transpose().sum();
        assertThat(s.taskCount()).isEqualTo(400 + 400 + 13 + 1);
        assertThat(x.add(x.T()).transpose().reduce("sum", 8).taskCount()).isEqualTo(400 + 400 + 50 + 7 + 1);
        assertThat(x.sum(0).taskCount()).isEqualTo(400 + 400 + 20 * (3 + 1)); // per column of blocks: 20 -> 3 -> 1 at fan-in 8
        assertThat(x.toString()).contains("shape=(10000, 10000)").contains("500 x20").contains("tasks=400");
    }

    @Test
    void everyOperationGetsFreshKeysSoRerunsComputeAnew() {
        DArray x = DArrays.ones(10, 10, ChunkSpec.of(5));
        Set<String> keys = new HashSet<>();
        for (int i = 0; i < 3; i++) {
            keys.addAll(x.add(1).materialize().graph().keys());
        }
        assertThat(keys).hasSize(4 + 3 * 4);
    }

    @Test
    void autoChunksAimAt128MiBLikeDask() {
        assertThat(ChunkSpec.auto().resolve2d(20_000, 20_000).rowSize(0)).isEqualTo(4096);
        assertThat(ChunkSpec.auto().resolve2d(20_000, 20_000).blocks()).isEqualTo(25);
        assertThat(ChunkSpec.auto().resolve2d(1000, 100_000).colSize(0)).isEqualTo(16777);
        assertThat(ChunkSpec.auto().resolve1d(100_000_000).colSize(0)).isEqualTo(16_777_216);
        assertThat(ChunkSpec.parse("500").resolve2d(1000, 1000).blocks()).isEqualTo(4);
        assertThat(ChunkSpec.parse("2x3").resolve2d(4, 6).blocks()).isEqualTo(4);
    }

    @Test
    void chunkSizesAreCheckedWhileTheGraphIsBuilt() {
        // A chunk as large as an int can be: one chunk along that axis (its count used to overflow).
        assertThat(DArrays.zeros(10, 7, ChunkSpec.of(Integer.MAX_VALUE)).chunks().blocks()).isEqualTo(1);
        assertThat(DArrays.zeros(10, 7, ChunkSpec.of(3, Integer.MAX_VALUE)).chunks().blockCols()).isEqualTo(1);
        // A block is one double[]: 50,000² doubles do not fit, whichever the creation function.
        assertThatThrownBy(() -> DArrays.random(50_000, 50_000, ChunkSpec.of(50_000), 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("smaller chunks");
        assertThatThrownBy(() -> DArrays.zeros(65_536, 65_536, ChunkSpec.of(65_536)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("smaller chunks");
        assertThat(DArrays.zeros(65_536, 65_536, ChunkSpec.of(32_768)).chunks().blocks()).isEqualTo(4);
    }

    @Test
    void minAndMaxOfAnEmptyExtentAreRefusedWhileSumAndMeanFollowNumPy() {
        DArray empty = DArrays.zeros(0, 5, ChunkSpec.of(2));
        assertThatThrownBy(empty::min).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("empty");
        assertThatThrownBy(empty::max).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("empty");
        assertThatThrownBy(() -> empty.min(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> empty.reduce("max", 0, 4)).isInstanceOf(IllegalArgumentException.class);
        assertThat(empty.sum().taskCount()).isPositive();
        assertThat(empty.max(1).shape()).containsExactly(0);   // nothing is reduced over an empty result
    }

    @Test
    void aMatrixChecksEachIndex() {
        Matrix m = new Matrix(2, 3, new double[] {0, 1, 2, 3, 4, 5});
        assertThat(m.get(1, 2)).isEqualTo(5);
        assertThatThrownBy(() -> m.get(0, 3)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> m.get(2, 0)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> m.get(-1, 0)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void transposesAndSlicesAddNoTasks() {
        DArray x = DArrays.random(100, 100, ChunkSpec.of(10), 1);
        assertThat(x.T().taskCount()).isEqualTo(100 + 100);   // computing a transpose materializes it
        assertThat(x.T().T().taskCount()).isEqualTo(100);     // ...but a double transpose is x itself
        assertThat(x.taskCount()).isEqualTo(100);
        // Only the 2 x 2 blocks of x under the slice are computed, then one fused task per block of the slice.
        assertThat(x.slice(5, 15, 5, 15).add(1).taskCount()).isEqualTo(4 + 4);
    }
}
