package io.dask4j.comm.config;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Warns about {@code -Ddask4j.*} system properties and {@code DASK4J_*} environment variables that no {@link
 * Setting} declares (a typo in a name, a wrong letter case, would otherwise change nothing, silently), naming
 * the closest declared one. Every entry point calls {@link #warnOnce()} as it starts (a scheduler, a worker, an MPI
 * rank, a {@code ./dask4j} command); only the first call of a process logs. Thread-safe; any thread.
 */
public final class UnknownSettings {

    private static final Logger LOG = LoggerFactory.getLogger(UnknownSettings.class);
    private static final UnknownSettings PROCESS = new UnknownSettings();

    private final AtomicBoolean checked = new AtomicBoolean();

    UnknownSettings() {
    }

    /** Logs a WARN line for each unknown setting of this process, the first time any thread calls it. */
    public static void warnOnce() {
        PROCESS.checkOnce(ConfigSource.system(), LOG::warn);
    }

    /** Sends one message per unknown setting of {@code source} to {@code warn} on the first call only. */
    void checkOnce(ConfigSource source, Consumer<String> warn) {
        if (checked.compareAndSet(false, true)) {
            messages(source).forEach(warn);
        }
    }

    /** One message per unknown {@code dask4j.*} property and {@code DASK4J_*} variable of {@code source}, sorted. */
    static List<String> messages(ConfigSource source) {
        List<String> out = new ArrayList<>();
        List<String> known = Settings.ALL.stream().map(Setting::name).toList();
        for (String name : unknown(source.properties().keySet(), "dask4j.", known)) {
            out.add("unknown system property -D" + name + ": dask4j reads no such setting; did you mean -D"
                    + closest(name, known) + "? (all settings: docs/configuration.md)");
        }
        for (String name : unknown(source.environment().keySet(), "DASK4J_", known)) {
            out.add("unknown environment variable " + name + ": dask4j reads no such setting; did you mean "
                    + closest(name, known) + "? (all settings: docs/configuration.md)");
        }
        return out;
    }

    private static Collection<String> unknown(Collection<String> names, String prefix, List<String> known) {
        TreeSet<String> unknown = new TreeSet<>();
        for (String name : names) {
            if (name.startsWith(prefix) && !known.contains(name)) {
                unknown.add(name);
            }
        }
        return unknown;
    }

    /** The name in {@code known} with the smallest edit distance to {@code name} (case-insensitive); ties: first. */
    static String closest(String name, List<String> known) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : known) {
            int d = levenshtein(name.toLowerCase(java.util.Locale.ROOT), candidate.toLowerCase(java.util.Locale.ROOT));
            if (d < bestDistance) {
                best = candidate;
                bestDistance = d;
            }
        }
        return best;
    }

    /** Insertions, deletions and substitutions that turn {@code a} into {@code b}. */
    static int levenshtein(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitute = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitute, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
