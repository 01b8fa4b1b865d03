package io.dask4j.comm.stats;

import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Supplier;

/**
 * Process-wide registry of gauges that a transport publishes about itself (for example the MPI progress
 * engine's passes per second and idle fraction), read by whoever reports metrics (the dashboard, the
 * Prometheus endpoint, a worker's heartbeat).
 *
 * <p>Lives in the comm layer so that a transport (a lower layer) can publish and the runtime (a higher
 * layer) can read without either depending on the other. A source is a short name such as {@code
 * "mpi_engine"}; its gauges are a name-to-number map computed on demand by the supplier.
 *
 * <p>Thread-safe: any thread may register, unregister or snapshot. Suppliers are called on the thread
 * that takes the snapshot, so they must be cheap and must not block; a supplier that throws is skipped
 * for that snapshot rather than breaking the whole report.
 */
public final class TransportGauges {

    private static final ConcurrentMap<String, Supplier<Map<String, Double>>> SOURCES = new ConcurrentHashMap<>();

    private TransportGauges() {
    }

    /** Publishes (or replaces) the gauges of {@code source}. */
    public static void register(String source, Supplier<Map<String, Double>> gauges) {
        SOURCES.put(Objects.requireNonNull(source, "source"), Objects.requireNonNull(gauges, "gauges"));
    }

    /** Removes {@code source} if it is still backed by {@code gauges} (so a newer registration survives). */
    public static void unregister(String source, Supplier<Map<String, Double>> gauges) {
        SOURCES.remove(source, gauges);
    }

    /** Current values of every source, sorted by source name; sources whose supplier failed are left out. */
    public static Map<String, Map<String, Double>> snapshot() {
        Map<String, Map<String, Double>> out = new TreeMap<>();
        SOURCES.forEach((source, supplier) -> {
            try {
                Map<String, Double> values = supplier.get();
                if (values != null) {
                    out.put(source, new TreeMap<>(values));
                }
            } catch (RuntimeException e) {
                // A broken gauge must not take the other sources' figures (or the caller) down with it.
            }
        });
        return out;
    }
}
