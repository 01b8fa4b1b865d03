package io.dask4j.array;

/** The reductions an array supports; mean is a sum divided on the client or in a fused scale. */
enum ReduceOp {
    SUM(0.0) {
        @Override
        double of(double acc, double x) {
            return acc + x;
        }

        /** Four independent sums: the adds pipeline instead of waiting on one another (order is fixed, so results repeat). */
        @Override
        double over(double[] a, int n) {
            double s0 = 0;
            double s1 = 0;
            double s2 = 0;
            double s3 = 0;
            int i = 0;
            for (; i + 3 < n; i += 4) {
                s0 += a[i];
                s1 += a[i + 1];
                s2 += a[i + 2];
                s3 += a[i + 3];
            }
            for (; i < n; i++) {
                s0 += a[i];
            }
            return (s0 + s1) + (s2 + s3);
        }
    },
    MIN(Double.POSITIVE_INFINITY) {
        @Override
        double of(double acc, double x) {
            return Math.min(acc, x);
        }
    },
    MAX(Double.NEGATIVE_INFINITY) {
        @Override
        double of(double acc, double x) {
            return Math.max(acc, x);
        }
    };

    final double identity;

    ReduceOp(double identity) {
        this.identity = identity;
    }

    abstract double of(double acc, double x);

    /** Reduces the first {@code n} elements of {@code a}. */
    double over(double[] a, int n) {
        double acc = identity;
        for (int i = 0; i < n; i++) {
            acc = of(acc, a[i]);
        }
        return acc;
    }

    /** {@code acc[i] = acc[i] op x[i]}, for partial results of equal length. */
    void combineInto(double[] acc, double[] x) {
        if (acc.length != x.length) {
            throw new IllegalArgumentException("partials of lengths " + acc.length + " and " + x.length + " cannot combine");
        }
        for (int i = 0; i < acc.length; i++) {
            acc[i] = of(acc[i], x[i]);
        }
    }
}
