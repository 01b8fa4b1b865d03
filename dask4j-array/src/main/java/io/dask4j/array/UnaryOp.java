package io.dask4j.array;

/** Elementwise functions of one array; each applies itself to a run of a tile in place. */
enum UnaryOp {
    NEG {
        @Override
        void apply(double[] a, int n) {
            for (int i = 0; i < n; i++) {
                a[i] = -a[i];
            }
        }
    },
    ABS {
        @Override
        void apply(double[] a, int n) {
            for (int i = 0; i < n; i++) {
                a[i] = Math.abs(a[i]);
            }
        }
    },
    SQRT {
        @Override
        void apply(double[] a, int n) {
            for (int i = 0; i < n; i++) {
                a[i] = Math.sqrt(a[i]);
            }
        }
    },
    EXP {
        @Override
        void apply(double[] a, int n) {
            for (int i = 0; i < n; i++) {
                a[i] = Math.exp(a[i]);
            }
        }
    };

    abstract void apply(double[] a, int n);
}
