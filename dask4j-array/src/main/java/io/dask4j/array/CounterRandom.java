package io.dask4j.array;

/**
 * A counter-based generator: the value at global element index {@code i} is a SplitMix64 hash of
 * {@code (seed, i)}. Every element's value depends only on the seed and its position, so an array is
 * the same whatever its chunking and whichever worker makes each chunk. Stateless.
 */
final class CounterRandom {
    private static final long GAMMA = 0x9E3779B97F4A7C15L;

    private CounterRandom() {
    }

    /** The per-array base of {@link #uniform}: computed once per block, not per element. */
    static long base(long seed) {
        return mix(seed);
    }

    /** A double uniform in [0, 1), with 53 random bits, for element {@code index} of an array whose base is {@code base}. */
    static double uniform(long base, long index) {
        return (mix(base + (index + 1) * GAMMA) >>> 11) * 0x1.0p-53;
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
