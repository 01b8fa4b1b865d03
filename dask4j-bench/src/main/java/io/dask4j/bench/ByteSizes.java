package io.dask4j.bench;

import io.dask4j.runtime.cluster.MemorySize;
import picocli.CommandLine;

/**
 * Byte counts for benchmarks: printed for tables ({@code 8 B}, {@code 1 KiB}, {@code 64 MiB}) and parsed from
 * options in the same notation, or as plain numbers. Stateless.
 */
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

    /**
     * A byte count as {@link #human} prints it or as {@code --memory-limit} takes it ({@link MemorySize}):
     * {@code 8}, {@code 1024}, {@code 1KiB}, {@code 1 MiB}, {@code 64m}, {@code 1MB} (10^6). A minus sign is
     * kept, so that the caller's range check names the value given rather than this parser refusing it.
     *
     * @throws IllegalArgumentException for anything else, naming the text and the notation
     */
    public static long parse(String text) {
        String t = text.strip();
        boolean negative = t.startsWith("-");
        try {
            long bytes = MemorySize.parse(negative ? t.substring(1) : t);
            return negative ? -bytes : bytes;
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("bad size '" + text + "': expected bytes, such as 8, 1024, 64KiB or 1MiB");
        }
    }

    /** {@link #parse} for picocli options: {@code @Option(converter = ByteSizes.Converter.class)}. */
    public static final class Converter implements CommandLine.ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            try {
                return parse(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }
}
