package io.dask4j.array;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

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
    void transposesAndSlicesAddNoTasks() {
        DArray x = DArrays.random(100, 100, ChunkSpec.of(10), 1);
        assertThat(x.T().taskCount()).isEqualTo(100 + 100);   // computing a transpose materializes it
        assertThat(x.T().T().taskCount()).isEqualTo(100);     // ...but a double transpose is x itself
        assertThat(x.taskCount()).isEqualTo(100);
        assertThat(x.slice(5, 15, 5, 15).add(1).taskCount()).isEqualTo(100 + 4);
    }
}
