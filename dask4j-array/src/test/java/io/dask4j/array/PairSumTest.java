package io.dask4j.array;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The buffer-free sum of two combined inputs against the tile evaluator's general path, bit for bit. The general
 * path is reached with the same expression times 1.0 (exact, and no longer a plain pair of inputs).
 */
class PairSumTest {

    /** {@code op(slot 0, slot 1)} summed by the evaluator's fast path, and by its general path. */
    private static double[] bothPaths(BinaryOp op, int[] g, double[] in0, double[] in1) {
        BlockExpr pair = new BlockExpr.Binary(op, new BlockExpr.Leaf(0), new BlockExpr.Leaf(1));
        BlockExpr general = new BlockExpr.Scalar(BinaryOp.MUL, pair, 1.0, false);
        double[][] inputs = {in0, in1};
        return new double[]{new TileEvaluator(pair, g, inputs).reduce(ReduceOp.SUM, -1)[0],
                new TileEvaluator(general, g, inputs).reduce(ReduceOp.SUM, -1)[0]};
    }

    @Test
    void theSeedBlockSumsToTheGeneralPathsValueAndCloseToAPlainLoop() {
        // (x + x.T).transpose() on a 500 x 500 block: slot 0 read transposed, slot 1 in place; ragged last tiles of 52
        int n = 500;
        double[] t = Reference.random(n, n, 21);
        double[] u = Reference.random(n, n, 22);
        double[] sums = bothPaths(BinaryOp.ADD, new int[]{n, n, n, 0, 0, 1, n, 0, 0, 0}, t, u);
        assertThat(sums[0]).isEqualTo(sums[1]);
        double plain = 0;
        for (int r = 0; r < n; r++) {
            for (int c = 0; c < n; c++) {
                plain += t[c * n + r] + u[r * n + c];
            }
        }
        assertThat(sums[0]).isCloseTo(plain, org.assertj.core.api.Assertions.within(1e-6));
    }

    @Test
    void windowsWithOffsetsOddRowsAndEveryTranspositionMatchExactly() {
        // a 150 x 100 window (odd tile heights: 64, 64, 22; widths 64, 36) of larger inputs, at offsets
        int rows = 150;
        int cols = 100;
        double[] wide = Reference.random(170, 130, 23);    // read in place: rows 150 of 130 columns from (9, 17)
        double[] tall = Reference.random(120, 160, 24);    // read transposed: 100 rows of 160 columns, from (11, 5)
        int[] straight = {130, 9, 17, 0};
        int[] transposed = {160, 11, 5, 1};
        for (BinaryOp op : new BinaryOp[]{BinaryOp.ADD, BinaryOp.SUB, BinaryOp.MUL, BinaryOp.MAX}) {
            for (int[][] slots : new int[][][]{
                    {straight, transposed}, {transposed, straight}, {straight, straight}, {transposed, transposed}}) {
                int[] g = {rows, cols, slots[0][0], slots[0][1], slots[0][2], slots[0][3],
                        slots[1][0], slots[1][1], slots[1][2], slots[1][3]};
                double[] sums = bothPaths(op, g, slots[0] == straight ? wide : tall,
                        slots[1] == straight ? wide : tall);
                assertThat(sums[0]).as("%s of %s", op, java.util.Arrays.deepToString(slots)).isEqualTo(sums[1]);
            }
        }
    }

    @Test
    void aLargeBlockWithTallTilesMatchesExactly() {
        // 2050 x 4100 with an input read transposed: the evaluator's 512-row tiles, ragged both ways
        int rows = 2050;
        int cols = 4100;
        double[] t = Reference.random(cols, rows, 25);
        double[] u = Reference.random(rows, cols, 26);
        double[] sums = bothPaths(BinaryOp.SUB, new int[]{rows, cols, rows, 0, 0, 1, cols, 0, 0, 0}, t, u);
        assertThat(sums[0]).isEqualTo(sums[1]);
    }

    @Test
    void onlyWholeBlockSumsOverWholeGroupsOfFourColumnsQualify() {
        assertThat(PairSum.applies(ReduceOp.SUM, -1, 500)).isTrue();
        assertThat(PairSum.applies(ReduceOp.SUM, -1, 130)).isFalse();
        assertThat(PairSum.applies(ReduceOp.SUM, 0, 500)).isFalse();
        assertThat(PairSum.applies(ReduceOp.MAX, -1, 500)).isFalse();
        double[] in = new double[6];
        assertThatThrownBy(() -> PairSum.sum(BinaryOp.ADD, in, 0, 3, 1, in, 0, 3, 1, 2, 3, 64))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("multiple of 4");
    }

    @Test
    void anEmptyBlockSumsToZero() {
        double[] none = new double[0];
        assertThat(bothPaths(BinaryOp.ADD, new int[]{0, 8, 8, 0, 0, 1, 8, 0, 0, 0}, none, none))
                .containsExactly(0.0, 0.0);
    }
}
