package io.dask4j.runtime.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class RowMetersTest {
    /** Rows the test sets by hand; counts its reads. */
    private static final class HandRows extends RowMeters {
        final Map<MetricRow, Double> rows = new LinkedHashMap<>();
        int reads;

        HandRows() {
            super(Duration.ZERO);
        }

        @Override
        protected Map<MetricRow, Double> read() {
            reads++;
            return new LinkedHashMap<>(rows);
        }
    }

    private final MeterRegistry registry = new SimpleMeterRegistry();
    private final HandRows binder = new HandRows();
    private final MetricRow workerA = MetricRow.gauge("w.memory", "memory", "worker", "a");
    private final MetricRow workerB = MetricRow.gauge("w.memory", "memory", "worker", "b");
    private final MetricRow done = MetricRow.counter("t.done", "tasks done");

    @Test
    void bindingRegistersAGaugeOrAFunctionCounterPerRowWithItsValue() {
        binder.rows.put(workerA, 5.0);
        binder.rows.put(done, 7.0);
        binder.bindTo(registry);
        assertThat(registry.get("w.memory").tag("worker", "a").gauge().value()).isEqualTo(5.0);
        assertThat(registry.get("t.done").functionCounter().count()).isEqualTo(7.0);
        assertThat(registry.get("t.done").functionCounter().getId().getDescription()).isEqualTo("tasks done");
    }

    @Test
    void meterValuesAreThoseOfTheLastRefreshReadOncePerRefresh() {
        binder.rows.put(workerA, 1.0);
        binder.rows.put(done, 1.0);
        binder.bindTo(registry);
        binder.rows.put(workerA, 2.0);
        assertThat(registry.get("w.memory").gauge().value()).as("not refreshed yet").isEqualTo(1.0);
        int before = binder.reads;
        binder.refresh();
        assertThat(binder.reads - before).isEqualTo(1);
        assertThat(registry.get("w.memory").gauge().value()).isEqualTo(2.0);
    }

    @Test
    void rowsThatAppearGetMetersAndRowsThatGoLoseThem() {
        binder.rows.put(workerA, 1.0);
        binder.bindTo(registry);
        binder.rows.remove(workerA);
        binder.rows.put(workerB, 3.0);
        binder.refresh();
        assertThat(registry.find("w.memory").tag("worker", "a").gauge()).isNull();
        assertThat(registry.get("w.memory").tag("worker", "b").gauge().value()).isEqualTo(3.0);
    }

    @Test
    void closeRemovesEveryMeterFromEveryRegistry() {
        MeterRegistry other = new SimpleMeterRegistry();
        binder.rows.put(workerA, 1.0);
        binder.rows.put(done, 1.0);
        binder.bindTo(registry);
        binder.bindTo(other);
        assertThat(other.getMeters()).hasSize(2);
        binder.close();
        assertThat(registry.getMeters()).isEmpty();
        assertThat(other.getMeters()).isEmpty();
    }
}
