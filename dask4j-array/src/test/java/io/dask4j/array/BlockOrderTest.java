package io.dask4j.array;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/** The submission orders behind {@link BlockLayout}: permutations of the blocks, with mirrors adjacent. */
class BlockOrderTest {

    private static void assertPermutation(int[] order, int blocks) {
        assertThat(Arrays.stream(order).sorted().toArray()).isEqualTo(IntStream.range(0, blocks).toArray());
    }

    @Test
    void mirrorsOfASquareGridComeAsAdjacentPairsGrowingSquareBySquare() {
        Chunks c = ChunkSpec.of(10).resolve2d(30, 30);   // 3 x 3 blocks
        int[] order = BlockOrder.mirrorsTogether(c);
        // (0,0) | (0,1) (1,0) (1,1) | (0,2) (2,0) (1,2) (2,1) (2,2)
        assertThat(order).containsExactly(0, 1, 3, 4, 2, 6, 5, 7, 8);
    }

    @Test
    void everyOffDiagonalBlockSitsNextToItsMirror() {
        Chunks c = ChunkSpec.of(500).resolve2d(10_000, 10_000);   // 20 x 20 blocks
        int[] order = BlockOrder.mirrorsTogether(c);
        assertPermutation(order, 400);
        int[] position = new int[400];
        for (int p = 0; p < order.length; p++) {
            position[order[p]] = p;
        }
        for (int i = 0; i < 20; i++) {
            for (int j = 0; j < 20; j++) {
                if (i != j) {
                    assertThat(Math.abs(position[i * 20 + j] - position[j * 20 + i])).isEqualTo(1);
                }
            }
        }
    }

    @Test
    void nonSquareGridsAndVectorsKeepEveryBlockOnce() {
        assertPermutation(BlockOrder.mirrorsTogether(ChunkSpec.of(10).resolve2d(20, 50)), 10);
        assertPermutation(BlockOrder.mirrorsTogether(ChunkSpec.of(10).resolve2d(50, 20)), 10);
        assertThat(BlockOrder.mirrorsTogether(ChunkSpec.of(10).resolve1d(35))).containsExactly(0, 1, 2, 3);
        assertThat(BlockOrder.rowMajor(ChunkSpec.of(10).resolve2d(20, 20))).containsExactly(0, 1, 2, 3);
    }
}
