package io.dask4j.array;

/**
 * The block kernels: cache-blocked transpose and rectangle copies, blocked matrix product. Plain
 * loops over row-major {@code double[]}s, shaped so the JIT can vectorize the inner ones. Stateless.
 */
final class Kernels {
    /** Square tiles of the blocked loops: 64 x 64 doubles = 32 KiB, a tile in and a tile out fit L2. */
    static final int TILE = 64;

    private Kernels() {
    }

    /**
     * {@code out[r * cols + c] = src[(rowOff + c) * stride + colOff + r]} for an output of {@code rows x
     * cols}: the transpose of the {@code cols x rows} window of {@code src} at {@code (rowOff, colOff)}.
     * Tiled so both the reads and the writes stay within a few cache lines per tile row.
     */
    static void transpose(double[] src, int stride, int rowOff, int colOff, double[] out, int rows, int cols) {
        for (int r0 = 0; r0 < rows; r0 += TILE) {
            int r1 = Math.min(rows, r0 + TILE);
            for (int c0 = 0; c0 < cols; c0 += TILE) {
                int c1 = Math.min(cols, c0 + TILE);
                for (int c = c0; c < c1; c++) {
                    int base = (rowOff + c) * stride + colOff;
                    for (int r = r0; r < r1; r++) {
                        out[r * cols + c] = src[base + r];
                    }
                }
            }
        }
    }

    /** Copies an {@code h x w} rectangle between row-major arrays of row lengths {@code srcStride} and {@code dstStride}. */
    static void copyRect(double[] src, int srcStride, int srcRow, int srcCol,
                         double[] dst, int dstStride, int dstRow, int dstCol, int h, int w) {
        for (int r = 0; r < h; r++) {
            System.arraycopy(src, (srcRow + r) * srcStride + srcCol, dst, (dstRow + r) * dstStride + dstCol, w);
        }
    }

    /** {@code c += a x b} for {@code a} of {@code m x k}, {@code b} of {@code k x n}, {@code c} of {@code m x n}. */
    static void multiplyAdd(double[] a, double[] b, double[] c, int m, int k, int n) {
        final int kb = 128;
        final int nb = 512;
        for (int k0 = 0; k0 < k; k0 += kb) {
            int k1 = Math.min(k, k0 + kb);
            for (int j0 = 0; j0 < n; j0 += nb) {
                int j1 = Math.min(n, j0 + nb);
                for (int i = 0; i < m; i++) {
                    int ci = i * n;
                    for (int p = k0; p < k1; p++) {
                        double aip = a[i * k + p];
                        int bp = p * n;
                        for (int j = j0; j < j1; j++) {
                            c[ci + j] += aip * b[bp + j];
                        }
                    }
                }
            }
        }
    }
}
