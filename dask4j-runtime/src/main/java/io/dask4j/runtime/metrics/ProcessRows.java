package io.dask4j.runtime.metrics;

import io.dask4j.comm.stats.TrafficCounts;

import java.util.Locale;
import java.util.Map;

/**
 * The rows of one process's comm figures: bytes and messages by transport and direction ({@code
 * dask4j_comm_bytes_total}, {@code dask4j_comm_messages_total}) and every transport gauge as {@code
 * dask4j_transport_<source>_<gauge>} (a counter when its name ends in {@code _total}; for MPI, the progress engine's
 * passes per second, idle fraction, pending requests, queue waits), each tagged with the process.
 */
final class ProcessRows {
    private ProcessRows() {
    }

    static void add(Map<MetricRow, Double> out, String process, Map<String, TrafficCounts> transports,
                    Map<String, Map<String, Double>> gauges) {
        transports.forEach((transport, c) -> {
            out.put(comm("bytes", "Comm bytes (wire size) by process, transport and direction.", process, transport, "in"), (double) c.bytesIn());
            out.put(comm("bytes", "Comm bytes (wire size) by process, transport and direction.", process, transport, "out"), (double) c.bytesOut());
            out.put(comm("messages", "Comm messages by process, transport and direction.", process, transport, "in"), (double) c.messagesIn());
            out.put(comm("messages", "Comm messages by process, transport and direction.", process, transport, "out"), (double) c.messagesOut());
        });
        gauges.forEach((source, values) -> values.forEach((gauge, value) -> {
            String name = "dask4j.transport." + sanitize(source) + "." + sanitize(gauge);
            String help = "Transport gauge published by the comm layer.";
            out.put(name.endsWith("_total")
                    ? MetricRow.counter(name.substring(0, name.length() - "_total".length()), help, "process", process)
                    : MetricRow.gauge(name, help, "process", process), value);
        }));
    }

    private static MetricRow comm(String what, String help, String process, String transport, String direction) {
        return MetricRow.counter("dask4j.comm." + what, help, "process", process, "transport", transport, "direction", direction);
    }

    /** A source or gauge name as a Prometheus name part: lower case letters, digits and underscores. */
    static String sanitize(String s) {
        String n = s.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
        return n.isEmpty() || Character.isDigit(n.charAt(0)) ? "_" + n : n;
    }
}
