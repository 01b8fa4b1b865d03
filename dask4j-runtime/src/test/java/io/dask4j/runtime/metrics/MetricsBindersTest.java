package io.dask4j.runtime.metrics;

import io.dask4j.comm.stats.TransportGauges;
import io.dask4j.runtime.client.Client;
import io.dask4j.runtime.cluster.RunningCluster;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link ClusterMetrics} and {@link CommMetrics} bound to a user's own registries, on an in-process cluster. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(60)
class MetricsBindersTest {
    /** One cluster for the class (one instance per class), closed after its tests. */
    @AutoClose
    private final RunningCluster running = RunningCluster.inproc(2, 1);
    private final Client client = running.client();

    @Test
    void clusterMetricsShowTasksWorkersAndCommTrafficInAnyRegistry() {
        client.gather(client.map((Integer x) -> x + 1, List.of(1, 2, 3)));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (ClusterMetrics metrics = new ClusterMetrics(running.cluster().scheduler()::view, Duration.ZERO)) {
            metrics.bindTo(registry);
            assertThat(registry.get("dask4j.tasks.completed").functionCounter().count()).isGreaterThanOrEqualTo(3);
            assertThat(registry.get("dask4j.workers").gauge().value()).isEqualTo(2);
            assertThat(registry.get("dask4j.worker.threads").tag("worker", "worker-1").gauge().value()).isEqualTo(1);
            assertThat(registry.get("dask4j.tasks").tag("state", "memory").gauge()).isNotNull();
            assertThat(registry.get("dask4j.comm.bytes").tags("process", "scheduler", "transport", "inproc", "direction", "in")
                    .functionCounter().count()).isPositive();
        }
        assertThat(registry.getMeters()).as("closing the binder removes its meters").isEmpty();
    }

    @Test
    void transportGaugesKeepTheirPrometheusNamesAndCountersEndInTotal() {
        Supplier<Map<String, Double>> engine = () -> Map.of("passes_per_second", 12.5, "queue_wait_seconds_total", 0.25,
                "queue_wait_max_seconds", 0.001);
        TransportGauges.register("mpi_engine", engine);
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (CommMetrics metrics = new CommMetrics("app", Duration.ZERO)) {
            metrics.bindTo(registry);
            client.submit(() -> 1).result();
            metrics.refresh();
            String text = registry.scrape();
            assertThat(text).contains("# TYPE dask4j_transport_mpi_engine_queue_wait_seconds_total counter")
                    .contains("dask4j_transport_mpi_engine_queue_wait_seconds_total{process=\"app\"} 0.25")
                    .contains("dask4j_transport_mpi_engine_passes_per_second{process=\"app\"} 12.5")
                    .contains("dask4j_transport_mpi_engine_queue_wait_max_seconds{process=\"app\"} 0.001")
                    .containsPattern("dask4j_comm_messages_total\\{direction=\"out\",process=\"app\",transport=\"inproc\"} [1-9]");
        } finally {
            TransportGauges.unregister("mpi_engine", engine);
        }
    }
}
