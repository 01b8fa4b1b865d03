package io.dask4j.array;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The tile evaluator against plain loops, on blocks larger than a tile and with odd sizes. */
class TileEvaluatorTest {

    @Test
    void aTransposedWindowWithOffsetsIsReadExactly() {
        int rows = 150;
        int cols = 97;
        double[] in = Reference.random(200, 180, 3);
        // output (r, c) = in[(5 + c) * 180 + 7 + r]
        double[] out = new TileEvaluator(new BlockExpr.Leaf(0), new int[]{rows, cols, 180, 5, 7, 1}, new double[][]{in}).materialize();
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                assertThat(out[r * cols + c]).isEqualTo(in[(5 + c) * 180 + 7 + r]);
            }
        }
    }

    @Test
    void aFusedExpressionIsEvaluatedAndReducedPerTile() {
        int n = 130;
        double[] a = Reference.random(n, n, 1);
        BlockExpr e = new BlockExpr.Binary(BinaryOp.ADD, new BlockExpr.Leaf(0), new BlockExpr.Unary(UnaryOp.NEG, new BlockExpr.Leaf(1)));
        int[] g = {n, n, n, 0, 0, 0, n, 0, 0, 1};
        double[] out = new TileEvaluator(e, g, new double[][]{a, a}).materialize();
        double[] expected = Reference.zip(a, Reference.transpose(a, n, n), (x, y) -> x - y);
        assertThat(out).isEqualTo(expected);
        double[] rowMax = new TileEvaluator(e, g, new double[][]{a, a}).reduce(ReduceOp.MAX, 1);
        assertThat(rowMax).isEqualTo(Reference.reduce(expected, n, n, 1, Math::max, Double.NEGATIVE_INFINITY));
        assertThat(new TileEvaluator(e, g, new double[][]{a, a}).reduce(ReduceOp.SUM, -1)[0])
                .isCloseTo(Reference.reduce(expected, Double::sum, 0), org.assertj.core.api.Assertions.within(1e-9));
    }

    @Test
    void aWindowOutsideItsInputIsRefused() {
        assertThatThrownBy(() -> new TileEvaluator(new BlockExpr.Leaf(0), new int[]{10, 10, 10, 1, 0, 0}, new double[][]{new double[100]}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("too small");
    }
}
