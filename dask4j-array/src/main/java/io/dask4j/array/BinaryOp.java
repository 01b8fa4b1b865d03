package io.dask4j.array;

/**
 * Elementwise functions of two operands. Each has a loop over two tiles ({@code a[i] = a[i] op b[i]})
 * and over a tile and a scalar, written out so that the JIT vectorizes them.
 */
enum BinaryOp {
    ADD {
        @Override
        double of(double x, double y) {
            return x + y;
        }

        @Override
        void apply(double[] a, double[] b, int n) {
            for (int i = 0; i < n; i++) {
                a[i] += b[i];
            }
        }
    },
    SUB {
        @Override
        double of(double x, double y) {
            return x - y;
        }

        @Override
        void apply(double[] a, double[] b, int n) {
            for (int i = 0; i < n; i++) {
                a[i] -= b[i];
            }
        }
    },
    MUL {
        @Override
        double of(double x, double y) {
            return x * y;
        }

        @Override
        void apply(double[] a, double[] b, int n) {
            for (int i = 0; i < n; i++) {
                a[i] *= b[i];
            }
        }
    },
    DIV {
        @Override
        double of(double x, double y) {
            return x / y;
        }

        @Override
        void apply(double[] a, double[] b, int n) {
            for (int i = 0; i < n; i++) {
                a[i] /= b[i];
            }
        }
    },
    POW {
        @Override
        double of(double x, double y) {
            return Math.pow(x, y);
        }
    },
    MIN {
        @Override
        double of(double x, double y) {
            return Math.min(x, y);
        }
    },
    MAX {
        @Override
        double of(double x, double y) {
            return Math.max(x, y);
        }
    };

    abstract double of(double x, double y);

    /** {@code a[i] = a[i] op b[i]} for the first {@code n} elements. */
    void apply(double[] a, double[] b, int n) {
        for (int i = 0; i < n; i++) {
            a[i] = of(a[i], b[i]);
        }
    }

    /**
     * {@code a[aOff + i] = a[aOff + i] op b[bOff + i]} for {@code n} elements: applies the operation
     * straight from an input row, saving the copy of that row into a tile buffer.
     */
    void applyRow(double[] a, int aOff, double[] b, int bOff, int n) {
        switch (this) {
            case ADD -> {
                for (int i = 0; i < n; i++) {
                    a[aOff + i] += b[bOff + i];
                }
            }
            case SUB -> {
                for (int i = 0; i < n; i++) {
                    a[aOff + i] -= b[bOff + i];
                }
            }
            case MUL -> {
                for (int i = 0; i < n; i++) {
                    a[aOff + i] *= b[bOff + i];
                }
            }
            default -> {
                for (int i = 0; i < n; i++) {
                    a[aOff + i] = of(a[aOff + i], b[bOff + i]);
                }
            }
        }
    }

    /** {@code a[i] = a[i] op s}, or {@code s op a[i]} when {@code scalarFirst}. */
    void applyScalar(double[] a, double s, boolean scalarFirst, int n) {
        switch (this) {
            case ADD -> {
                for (int i = 0; i < n; i++) {
                    a[i] += s;
                }
            }
            case MUL -> {
                for (int i = 0; i < n; i++) {
                    a[i] *= s;
                }
            }
            case SUB -> {
                if (scalarFirst) {
                    for (int i = 0; i < n; i++) {
                        a[i] = s - a[i];
                    }
                } else {
                    for (int i = 0; i < n; i++) {
                        a[i] -= s;
                    }
                }
            }
            default -> {
                for (int i = 0; i < n; i++) {
                    a[i] = scalarFirst ? of(s, a[i]) : of(a[i], s);
                }
            }
        }
    }
}
