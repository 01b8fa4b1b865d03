package io.dask4j.runtime.dashboard;

import com.fasterxml.jackson.databind.JsonNode;
import io.dask4j.runtime.client.Client;
import io.dask4j.runtime.client.DaskFuture;
import io.dask4j.runtime.cluster.LocalCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/** Worker processes over tcp report their own process's traffic and figures in heartbeats. */
@Timeout(90)
class DashboardProcessesTest {

    private static JsonNode process(JsonNode traffic, String name) {
        for (JsonNode p : traffic.get("processes")) {
            if (p.get("name").asText().equals(name)) {
                return p;
            }
        }
        return null;
    }

    @Test
    void workerProcessesReportTheirTcpTrafficAndTheMetricsShowIt() {
        try (LocalCluster cluster = LocalCluster.builder().workers(2).processes(true).dashboardAddress("127.0.0.1:0").start();
             Client client = cluster.client()) {
            URI base = cluster.dashboardUrl().orElseThrow();
            // worker-to-worker traffic: each sum needs inputs from both workers
            List<DaskFuture<Integer>> xs = client.map((Integer x) -> x + 1, IntStream.range(0, 50).boxed().toList());
            DaskFuture<Integer> total = client.submit((List<Integer> all) -> all.stream().mapToInt(Integer::intValue).sum(), xs);
            assertThat(total.result()).isEqualTo(IntStream.range(1, 51).sum());

            Http.await("both worker processes reported tcp traffic", Duration.ofSeconds(30), () -> {
                JsonNode t = Http.json(base, "/api/v1/traffic");
                for (String w : List.of("worker-0", "worker-1")) {
                    JsonNode p = process(t, w);
                    if (p == null || !p.get("transports").has("tcp") || p.get("transports").get("tcp").get("bytes_out").asLong() == 0) {
                        return false;
                    }
                }
                return true;
            });
            JsonNode t = Http.json(base, "/api/v1/traffic");
            assertThat(t.get("processes")).hasSize(3);
            JsonNode scheduler = process(t, "scheduler");
            assertThat(scheduler.get("roles").toString()).isEqualTo("[\"scheduler\"]");
            assertThat(scheduler.get("transports").get("tcp").get("messages_in").asLong()).isPositive();
            JsonNode w0 = process(t, "worker-0");
            assertThat(w0.get("pid").asLong()).isNotEqualTo(ProcessHandle.current().pid());
            assertThat(w0.get("peers").size()).isPositive();

            JsonNode workers = Http.json(base, "/api/v1/workers").get("workers");
            for (JsonNode w : workers) {
                assertThat(w.get("heap_max").asLong()).isPositive();
            }
            List<PrometheusTextParser.Sample> m = PrometheusTextParser.parse(Http.get(base, "/metrics").body());
            assertThat(PrometheusTextParser.value(m, "dask4j_comm_bytes_total",
                    Map.of("process", "worker-1", "transport", "tcp", "direction", "out"))).isPositive();
            assertThat(PrometheusTextParser.value(m, "dask4j_comm_messages_total",
                    Map.of("process", "scheduler", "transport", "tcp", "direction", "in"))).isPositive();
        }
    }
}
