package io.dask4j.array;

import java.util.function.DoubleBinaryOperator;
import java.util.function.DoubleUnaryOperator;

/** Plain single-threaded Java versions of the array operations, on row-major {@code double[]}s. */
final class Reference {
    private Reference() {
    }

    static double[] random(int rows, int cols, long seed) {
        double[] out = new double[rows * cols];
        long base = CounterRandom.base(seed);
        for (int i = 0; i < out.length; i++) {
            out[i] = CounterRandom.uniform(base, i);
        }
        return out;
    }

    static double[] map(double[] a, DoubleUnaryOperator f) {
        double[] out = new double[a.length];
        for (int i = 0; i < a.length; i++) {
            out[i] = f.applyAsDouble(a[i]);
        }
        return out;
    }

    static double[] zip(double[] a, double[] b, DoubleBinaryOperator f) {
        double[] out = new double[a.length];
        for (int i = 0; i < a.length; i++) {
            out[i] = f.applyAsDouble(a[i], b[i]);
        }
        return out;
    }

    static double[] transpose(double[] a, int rows, int cols) {
        double[] out = new double[a.length];
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                out[c * rows + r] = a[r * cols + c];
            }
        }
        return out;
    }

    static double[] slice(double[] a, int cols, int r0, int r1, int c0, int c1) {
        double[] out = new double[(r1 - r0) * (c1 - c0)];
        for (int r = r0; r < r1; r++) {
            for (int c = c0; c < c1; c++) {
                out[(r - r0) * (c1 - c0) + (c - c0)] = a[r * cols + c];
            }
        }
        return out;
    }

    static double reduce(double[] a, DoubleBinaryOperator f, double identity) {
        double acc = identity;
        for (double v : a) {
            acc = f.applyAsDouble(acc, v);
        }
        return acc;
    }

    /** Reduces over rows (axis 0: one value per column) or along rows (axis 1: one per row). */
    static double[] reduce(double[] a, int rows, int cols, int axis, DoubleBinaryOperator f, double identity) {
        double[] out = new double[axis == 0 ? cols : rows];
        java.util.Arrays.fill(out, identity);
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                int o = axis == 0 ? c : r;
                out[o] = f.applyAsDouble(out[o], a[r * cols + c]);
            }
        }
        return out;
    }

    static double[] matmul(double[] a, double[] b, int m, int k, int n) {
        double[] out = new double[m * n];
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                double s = 0;
                for (int p = 0; p < k; p++) {
                    s += a[i * k + p] * b[p * n + j];
                }
                out[i * n + j] = s;
            }
        }
        return out;
    }
}
