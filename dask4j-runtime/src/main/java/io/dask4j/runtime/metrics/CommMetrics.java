package io.dask4j.runtime.metrics;

import io.dask4j.comm.stats.CommTraffic;
import io.dask4j.comm.stats.TransportGauges;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * This JVM's comm figures as Micrometer meters, for a process without the scheduler (a client inside an
 * application, a worker): {@code dask4j_comm_bytes_total} and {@code dask4j_comm_messages_total} by transport and
 * direction, and the transports' gauges (the MPI progress engine's), tagged {@code process=<the given name>}, as
 * {@link ClusterMetrics} tags each process of a cluster. Thread-safe, as {@link RowMeters}.
 */
public final class CommMetrics extends RowMeters {
    private final String process;

    /** Meters tagged {@code process}, refreshed every {@code refreshEvery} once bound (never if zero). */
    public CommMetrics(String process, Duration refreshEvery) {
        super(refreshEvery);
        this.process = process;
    }

    @Override
    protected Map<MetricRow, Double> read() {
        Map<MetricRow, Double> out = new HashMap<>();
        ProcessRows.add(out, process, CommTraffic.snapshot().transports(), TransportGauges.snapshot());
        return out;
    }
}
