package io.dask4j.comm.stats;

import jdk.jfr.MetadataDefinition;
import jdk.jfr.SettingControl;

import java.util.Locale;
import java.util.Set;

/**
 * The {@code minSize} setting of {@link CommMessageEvent}: a size such as {@code 64 kB}, {@code 1 MB} or {@code
 * 4096} (bytes); with several recordings, the smallest wins. Called by JFR; thread-safe.
 */
@MetadataDefinition
public final class MinSizeSetting extends SettingControl {
    static final String DEFAULT = "1 MB";
    private static final long DEFAULT_BYTES = 1 << 20;

    private volatile String value = DEFAULT;
    private volatile long minBytes = DEFAULT_BYTES;

    public MinSizeSetting() {
    }

    long minBytes() {
        return minBytes;
    }

    @Override
    public String combine(Set<String> values) {
        String smallest = null;
        for (String v : values) {
            if (smallest == null || parse(v) < parse(smallest)) {
                smallest = v;
            }
        }
        return smallest == null ? DEFAULT : smallest;
    }

    @Override
    public void setValue(String v) {
        value = v;
        minBytes = parse(v);
    }

    @Override
    public String getValue() {
        return value;
    }

    /** Bytes of {@code "64 kB"}, {@code "1 MB"}, {@code "4096"}; an unreadable value means the default. */
    static long parse(String s) {
        String t = s.trim().toUpperCase(Locale.ROOT).replace(" ", "");
        long unit = 1;
        for (String[] u : new String[][]{{"GB", "1073741824"}, {"MB", "1048576"}, {"KB", "1024"}, {"B", "1"}}) {
            if (t.endsWith(u[0])) {
                unit = Long.parseLong(u[1]);
                t = t.substring(0, t.length() - u[0].length());
                break;
            }
        }
        try {
            return Long.parseLong(t) * unit;
        } catch (NumberFormatException e) {
            return DEFAULT_BYTES;
        }
    }
}
