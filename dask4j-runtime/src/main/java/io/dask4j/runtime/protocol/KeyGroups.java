package io.dask4j.runtime.protocol;

/**
 * The task group of a key, after Dask's {@code key_split}: the scheduler groups tasks by it for the dashboard, and
 * a worker names it in its JFR task events. Pure functions, any thread.
 */
public final class KeyGroups {
    private KeyGroups() {
    }

    /** The task group {@code key} belongs to ({@code map-1a2b3c4d-17 -> map}). */
    public static String groupOf(String key) {
        return key.substring(0, prefixEnd(key));
    }

    /**
     * Where the group name ends in {@code key}, after Dask's {@code key_split}: the first word, then
     * further '-'-separated words while they are purely alphabetic and not an 8-letter hex token.
     * {@code map-1a2b3c4d-17 -> map}, {@code tree1-sum-5 -> tree1-sum}, {@code random-3-2,4 -> random}.
     */
    public static int prefixEnd(String key) {
        int n = key.length();
        int end = key.indexOf('-');
        if (end < 0) {
            return n;
        }
        if (end == 0) {
            return n;
        }
        while (end < n) {
            int next = key.indexOf('-', end + 1);
            int wordEnd = next < 0 ? n : next;
            if (!alphabeticWord(key, end + 1, wordEnd)) {
                return end;
            }
            end = wordEnd;
        }
        return end;
    }

    private static boolean alphabeticWord(String key, int from, int to) {
        if (from >= to) {
            return false;
        }
        boolean hex = to - from == 8;
        for (int i = from; i < to; i++) {
            char c = key.charAt(i);
            if (!Character.isLetter(c)) {
                return false;
            }
            hex &= (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
        }
        return !hex;
    }
}
