package io.dask4j.runtime.metrics;

import io.micrometer.core.instrument.Tags;

/**
 * One meter that a {@link RowMeters} binder keeps in its registries: its Micrometer name (dotted; Prometheus sees
 * dots as underscores and a counter with {@code _total} added), whether it is a gauge or a monotonic counter, its
 * description and its tags. Immutable; equal rows are the same meter.
 */
public record MetricRow(String name, Kind kind, String help, Tags tags) {
    /** How a registry reports the value. */
    public enum Kind {
        GAUGE, COUNTER
    }

    public static MetricRow gauge(String name, String help, String... tags) {
        return new MetricRow(name, Kind.GAUGE, help, Tags.of(tags));
    }

    public static MetricRow counter(String name, String help, String... tags) {
        return new MetricRow(name, Kind.COUNTER, help, Tags.of(tags));
    }
}
