package io.dask4j.runtime.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.time.Duration;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A {@link MeterBinder} for figures whose set changes (workers join and leave, transports appear): at each {@link
 * #refresh()} it reads every row's value at once ({@link #read()}), registers a gauge or function counter for each
 * new row in every registry it is bound to, and removes the meters of rows that are gone. Meters report the values of
 * the last refresh, so figures that must be read once per reading (maxima since the last read) are read once per
 * refresh, not once per meter.
 *
 * <p>Refreshing: every {@code refreshEvery} on a daemon thread of its own once bound (for registries that are
 * scraped or that push on their own), or never if zero, the owner calling {@link #refresh()} itself (as the
 * dashboard does before each scrape). Thread-safe: any thread may bind, refresh and close. {@link #close()} stops
 * the refreshes and removes the meters from the registries.
 */
public abstract class RowMeters implements MeterBinder, AutoCloseable {
    private final Duration refreshEvery;
    private final Map<MeterRegistry, Map<MetricRow, Meter>> registered = new IdentityHashMap<>();
    private volatile Map<MetricRow, Double> values = Map.of();
    private ScheduledExecutorService timer;

    protected RowMeters(Duration refreshEvery) {
        if (refreshEvery.isNegative()) {
            throw new IllegalArgumentException("refreshEvery must not be negative: " + refreshEvery);
        }
        this.refreshEvery = refreshEvery;
    }

    /** Every row and its value now; called by {@link #refresh()}, one call at a time. */
    protected abstract Map<MetricRow, Double> read();

    @Override
    public synchronized void bindTo(MeterRegistry registry) {
        registered.putIfAbsent(registry, new HashMap<>());
        refresh();
        if (timer == null && !refreshEvery.isZero()) {
            timer = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("dask4j-metrics").factory());
            long ms = Math.max(1, refreshEvery.toMillis());
            timer.scheduleWithFixedDelay(this::refresh, ms, ms, TimeUnit.MILLISECONDS);
        }
    }

    /** Reads the rows and brings every bound registry's meters in line with them. */
    public synchronized void refresh() {
        Map<MetricRow, Double> now = read();
        values = now;
        for (Map.Entry<MeterRegistry, Map<MetricRow, Meter>> e : registered.entrySet()) {
            sync(e.getKey(), e.getValue(), now);
        }
    }

    private void sync(MeterRegistry registry, Map<MetricRow, Meter> meters, Map<MetricRow, Double> now) {
        for (Iterator<Map.Entry<MetricRow, Meter>> it = meters.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<MetricRow, Meter> m = it.next();
            if (!now.containsKey(m.getKey())) {
                registry.remove(m.getValue());
                it.remove();
            }
        }
        for (MetricRow row : now.keySet()) {
            meters.computeIfAbsent(row, r -> register(registry, r));
        }
    }

    private Meter register(MeterRegistry registry, MetricRow row) {
        return switch (row.kind()) {
            case GAUGE -> Gauge.builder(row.name(), this, m -> m.valueOf(row)).description(row.help()).tags(row.tags())
                    .strongReference(true).register(registry);
            case COUNTER -> FunctionCounter.builder(row.name(), this, m -> m.valueOf(row)).description(row.help())
                    .tags(row.tags()).register(registry);
        };
    }

    private double valueOf(MetricRow row) {
        Double v = values.get(row);
        return v == null ? Double.NaN : v;
    }

    @Override
    public synchronized void close() {
        if (timer != null) {
            timer.shutdownNow();
            timer = null;
        }
        registered.forEach((registry, meters) -> meters.values().forEach(registry::remove));
        registered.clear();
    }
}
