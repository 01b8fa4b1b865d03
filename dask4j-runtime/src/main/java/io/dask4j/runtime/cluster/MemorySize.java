package io.dask4j.runtime.cluster;

import java.util.Locale;

/**
 * Parses memory sizes as people write them: {@code 4GiB}, {@code 500MB}, {@code 2g}, {@code 1e9},
 * {@code 0} (no limit). Decimal units (kB, MB, GB, TB) are powers of 1000, binary ones (KiB, MiB, ...
 * and the single letters k, m, g, t) powers of 1024. Stateless.
 */
public final class MemorySize {
    private MemorySize() {
    }

    public static long parse(String text) {
        String t = text.strip().toLowerCase(Locale.ROOT).replace("_", "");
        int i = 0;
        while (i < t.length() && (Character.isDigit(t.charAt(i)) || t.charAt(i) == '.' || t.charAt(i) == 'e')) {
            i++;
        }
        if (i == 0) {
            throw new IllegalArgumentException("bad memory size '" + text + "'");
        }
        double number;
        try {
            number = Double.parseDouble(t.substring(0, i));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad memory size '" + text + "'");
        }
        long unit = switch (t.substring(i).strip()) {
            case "", "b" -> 1L;
            case "kb" -> 1000L;
            case "mb" -> 1000L * 1000;
            case "gb" -> 1000L * 1000 * 1000;
            case "tb" -> 1000L * 1000 * 1000 * 1000;
            case "k", "kib" -> 1L << 10;
            case "m", "mib" -> 1L << 20;
            case "g", "gib" -> 1L << 30;
            case "t", "tib" -> 1L << 40;
            default -> throw new IllegalArgumentException("bad memory unit in '" + text + "'");
        };
        if (number < 0) {
            throw new IllegalArgumentException("negative memory size '" + text + "'");
        }
        return (long) (number * unit);
    }
}
