package io.dask4j.runtime.worker;

import java.lang.foreign.MemorySegment;
import java.nio.Buffer;
import java.util.Collection;
import java.util.Map;

/**
 * Estimates how many bytes a value occupies, for the data store's accounting and the scheduler's
 * placement (Dask's {@code sizeof}). Exact for arrays and buffers, a fair guess for the rest; large
 * collections are sampled. Stateless and thread-safe.
 */
public final class Sizes {
    private static final int SAMPLE = 32;

    private Sizes() {
    }

    public static long estimate(Object value) {
        return switch (value) {
            case null -> 8;
            case byte[] a -> 16L + a.length;
            case double[] a -> 16L + 8L * a.length;
            case long[] a -> 16L + 8L * a.length;
            case int[] a -> 16L + 4L * a.length;
            case float[] a -> 16L + 4L * a.length;
            case short[] a -> 16L + 2L * a.length;
            case char[] a -> 16L + 2L * a.length;
            case boolean[] a -> 16L + a.length;
            case MemorySegment s -> 16L + s.byteSize();
            case Buffer b -> 48L + (long) b.capacity() * 8;
            case String s -> 40L + s.length();
            case Number n -> 16;
            case Boolean b -> 16;
            case Object[] a -> 16L + 8L * a.length + sampled(java.util.Arrays.asList(a));
            case Collection<?> c -> 48L + 8L * c.size() + sampled(c);
            case Map<?, ?> m -> 48L + 40L * m.size() + sampled(m.keySet()) + sampled(m.values());
            default -> 64;
        };
    }

    private static long sampled(Collection<?> items) {
        int n = items.size();
        if (n == 0) {
            return 0;
        }
        long sum = 0;
        int seen = 0;
        for (Object o : items) {
            sum += estimate(o);
            if (++seen == SAMPLE) {
                break;
            }
        }
        return sum * n / seen;
    }
}
