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
    void aLargeBlockReadTransposedUsesTallTilesAndStaysExact() {
        // 2050 x 4100 = 8,405,000 elements: past the 64 MiB at which tall tiles start, with ragged last tiles both ways.
        int rows = 2050;
        int cols = 4100;
        double[] t = Reference.random(cols, rows, 5);   // read transposed: output (r, c) = t[c * rows + r]
        double[] u = Reference.random(rows, cols, 6);   // read in place:   output (r, c) = u[r * cols + c]
        BlockExpr e = new BlockExpr.Binary(BinaryOp.SUB, new BlockExpr.Leaf(0), new BlockExpr.Leaf(1));
        int[] g = {rows, cols, rows, 0, 0, 1, cols, 0, 0, 0};
        double[] out = new TileEvaluator(e, g, new double[][]{t, u}).materialize();
        double[] colSums = new TileEvaluator(e, g, new double[][]{t, u}).reduce(ReduceOp.SUM, 0);
        double[] expectedColSums = new double[cols];
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                double v = t[c * rows + r] - u[r * cols + c];
                assertThat(out[r * cols + c]).isEqualTo(v);
                expectedColSums[c] += v;
            }
        }
        for (int c = 0; c < cols; c++) {
            assertThat(colSums[c]).isCloseTo(expectedColSums[c], org.assertj.core.api.Assertions.within(1e-9));
        }
    }

    @Test
    void aWindowOutsideItsInputIsRefused() {
        assertThatThrownBy(() -> new TileEvaluator(new BlockExpr.Leaf(0), new int[]{10, 10, 10, 1, 0, 0}, new double[][]{new double[100]}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("too small");
    }
}
