package io.dask4j.bench;

/** Byte counts for benchmark tables: {@code 8 B}, {@code 1 KiB}, {@code 64 MiB}. Stateless. */
public final class ByteSizes {
    private ByteSizes() {
    }

    public static String human(long bytes) {
        if (bytes >= 1 << 20 && bytes % (1 << 20) == 0) {
            return (bytes >> 20) + " MiB";
        }
        if (bytes >= 1024 && bytes % 1024 == 0) {
            return (bytes >> 10) + " KiB";
        }
        return bytes + " B";
    }
}
