package io.dask4j.runtime.dashboard;

import com.fasterxml.jackson.databind.JsonNode;
import io.dask4j.runtime.client.Client;
import io.dask4j.runtime.client.DaskFuture;
import io.dask4j.runtime.client.TaskGraph;
import io.dask4j.runtime.cluster.LocalCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/** The dashboard's JSON API and /metrics against a running in-process cluster (2 workers x 1 thread). */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(60)
class DashboardApiTest {
    private LocalCluster cluster;
    private Client client;
    private URI base;

    @BeforeAll
    void start() {
        cluster = LocalCluster.builder().workers(2).threadsPerWorker(1).dashboardAddress("127.0.0.1:0").start();
        client = cluster.client();
        base = cluster.dashboardUrl().orElseThrow();
    }

    @AfterAll
    void stop() {
        client.close();
        cluster.close();
    }

    static int slow(int x) {
        try {
            Thread.sleep(10);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return x + 1;
    }

    /** Submits {@code n} slow tasks named {@code <prefix>-<i>}; they take about n * 5 ms on 2 threads. */
    private Map<String, DaskFuture<Object>> submitSlow(String prefix, int n) {
        TaskGraph g = new TaskGraph();
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            g.add(prefix + "-" + i, (Integer x) -> slow(x), i);
            keys.add(prefix + "-" + i);
        }
        return client.persist(g, keys.toArray(String[]::new));
    }

    private static JsonNode group(JsonNode groups, String name) {
        for (JsonNode g : groups.get("groups")) {
            if (g.get("name").asText().equals(name)) {
                return g;
            }
        }
        return null;
    }

    @Test
    void summaryNamesTheSchedulerAndCountsWorkersAndThreads() {
        JsonNode s = Http.json(base, "/api/v1/summary");
        assertThat(s.get("workers").asInt()).isEqualTo(2);
        assertThat(s.get("threads").asInt()).isEqualTo(2);
        assertThat(s.get("scheduler").get("addresses").get(0).asText()).isEqualTo(cluster.schedulerAddress().toString());
        assertThat(s.get("scheduler").get("dashboard").asText()).isEqualTo(base.toString());
        assertThat(s.get("tasks").has("processing")).isTrue();
    }

    @Test
    void progressCountsRiseWhileAGraphRunsAndMatchTheGraphAtTheEnd() {
        int n = 240;
        Map<String, DaskFuture<Object>> futures = submitSlow("slowinc", n);
        TreeSet<Long> seen = new TreeSet<>();
        Http.await("every slowinc task is done", Duration.ofSeconds(30), () -> {
            JsonNode g = group(Http.json(base, "/api/v1/tasks/groups"), "slowinc");
            long done = g == null ? 0 : g.get("completed").asLong();
            seen.add(done);
            return done == n;
        });
        JsonNode g = group(Http.json(base, "/api/v1/tasks/groups"), "slowinc");
        assertThat(g.get("total").asLong()).isEqualTo(n);
        assertThat(g.get("memory").asInt()).isEqualTo(n);
        assertThat(g.get("erred").asLong()).isZero();
        assertThat(g.get("compute_s").asDouble()).isGreaterThan(0);
        assertThat(seen.subSet(1L, (long) n)).as("progress values seen between 0 and %d: %s", n, seen).isNotEmpty();

        JsonNode s = Http.json(base, "/api/v1/summary");
        assertThat(s.get("completed").asLong()).isGreaterThanOrEqualTo(n);
        futures.values().forEach(DaskFuture::release);
        Http.await("released results leave memory", Duration.ofSeconds(10),
                () -> group(Http.json(base, "/api/v1/tasks/groups"), "slowinc") == null
                        || group(Http.json(base, "/api/v1/tasks/groups"), "slowinc").get("memory").asInt() == 0);
    }

    @Test
    void anErringTaskIsCountedInItsGroup() {
        DaskFuture<Object> f = client.persist(new TaskGraph().add("failing-1", () -> {
            throw new IllegalStateException("boom");
        }), "failing-1").get("failing-1");
        Http.await("the failure is counted", Duration.ofSeconds(10), () -> {
            JsonNode g = group(Http.json(base, "/api/v1/tasks/groups"), "failing");
            return g != null && g.get("erred").asLong() == 1;
        });
        assertThat(Http.json(base, "/api/v1/summary").get("erred").asLong()).isGreaterThanOrEqualTo(1);
        f.release();
    }

    @Test
    void taskStreamReturnsFinishedTasksWithWorkersAndOnlyNewerOnesAfterASequenceNumber() {
        Map<String, DaskFuture<Object>> futures = submitSlow("streamed", 60);
        Http.await("the stream shows the tasks", Duration.ofSeconds(30), () -> {
            JsonNode t = Http.json(base, "/api/v1/task-stream");
            for (JsonNode e : t.get("events")) {
                if (e.get(2).asText().equals("streamed")) {
                    return true;
                }
            }
            return false;
        });
        client.gather(futures.values());
        JsonNode t = Http.json(base, "/api/v1/task-stream");
        assertThat(t.get("columns").toString()).isEqualTo("[\"seq\",\"worker\",\"group\",\"key\",\"start_ms\",\"stop_ms\"]");
        int workers = t.get("workers").size();
        assertThat(workers).isGreaterThanOrEqualTo(2);
        long last = -1;
        for (JsonNode e : t.get("events")) {
            assertThat(e.get(0).asLong()).isGreaterThan(last);
            last = e.get(0).asLong();
            assertThat(e.get(1).asInt()).isBetween(0, workers - 1);
            assertThat(e.get(5).asDouble()).isGreaterThanOrEqualTo(e.get(4).asDouble());
            assertThat(e.get(4).asDouble()).isGreaterThan(1.6e12);
        }
        assertThat(t.get("seq").asLong()).isEqualTo(last);
        JsonNode after = Http.json(base, "/api/v1/task-stream?since=" + last);
        for (JsonNode e : after.get("events")) {
            assertThat(e.get(0).asLong()).isGreaterThan(last);
        }
        futures.values().forEach(DaskFuture::release);
    }

    @Test
    void workersReportThreadsMemoryCpuAndTheirCompletedTasks() {
        List<DaskFuture<Integer>> fs = client.map((Integer x) -> x * 2, List.of(1, 2, 3, 4, 5, 6));
        client.gather(fs);
        Http.await("a heartbeat carried the worker's process figures and the tasks are counted", Duration.ofSeconds(10), () -> {
            long finished = 0;
            for (JsonNode w : Http.json(base, "/api/v1/workers").get("workers")) {
                if (w.get("heap_max").asLong() <= 0) {
                    return false;
                }
                finished += w.get("tasks_completed").asLong();
            }
            return finished >= 6;
        });
        JsonNode ws = Http.json(base, "/api/v1/workers").get("workers");
        assertThat(ws).hasSize(2);
        long done = 0;
        for (JsonNode w : ws) {
            assertThat(w.get("nthreads").asInt()).isEqualTo(1);
            assertThat(w.get("pid").asLong()).isEqualTo(ProcessHandle.current().pid());
            assertThat(w.get("cpu").asDouble()).isGreaterThanOrEqualTo(0);
            assertThat(w.get("memory").asLong()).isGreaterThanOrEqualTo(0);
            assertThat(w.get("name").asText()).startsWith("worker-");
            done += w.get("tasks_completed").asLong();
        }
        assertThat(done).isGreaterThanOrEqualTo(6);
        fs.forEach(DaskFuture::release);
    }

    @Test
    void trafficShowsTheSchedulerProcessInprocBytesAndPeers() {
        client.gather(client.map((Integer x) -> x, List.of(1, 2, 3)));
        JsonNode t = Http.json(base, "/api/v1/traffic");
        JsonNode scheduler = t.get("processes").get(0);
        assertThat(scheduler.get("name").asText()).isEqualTo("scheduler");
        assertThat(scheduler.get("roles").toString()).contains("worker-0", "worker-1");
        JsonNode inproc = scheduler.get("transports").get("inproc");
        assertThat(inproc.get("bytes_in").asLong()).isPositive();
        assertThat(inproc.get("bytes_out").asLong()).isPositive();
        assertThat(inproc.get("messages_in").asLong()).isPositive();
        assertThat(scheduler.get("peers").size()).isPositive();
        assertThat(t.get("processes")).hasSize(1);
    }

    @Test
    void metricsParseAsPrometheusTextAndAgreeWithTheJsonApi() {
        client.gather(client.map((Integer x) -> x, List.of(1, 2, 3)));
        // views are published every 200 ms: the figures catch up with the client shortly after
        Http.await("the metrics count the finished tasks", Duration.ofSeconds(10), () -> PrometheusTextParser.value(
                PrometheusTextParser.parse(Http.get(base, "/metrics").body()), "dask4j_tasks_completed_total", Map.of()) >= 3);
        HttpResponse<String> r = Http.get(base, "/metrics");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain; version=0.0.4");
        List<PrometheusTextParser.Sample> samples = PrometheusTextParser.parse(r.body());
        assertThat(PrometheusTextParser.value(samples, "dask4j_workers", Map.of())).isEqualTo(2);
        assertThat(PrometheusTextParser.value(samples, "dask4j_tasks_completed_total", Map.of())).isGreaterThanOrEqualTo(3);
        assertThat(PrometheusTextParser.value(samples, "dask4j_tasks", Map.of("state", "processing"))).isGreaterThanOrEqualTo(0);
        assertThat(PrometheusTextParser.value(samples, "dask4j_worker_threads", Map.of("worker", "worker-0"))).isEqualTo(1);
        assertThat(PrometheusTextParser.value(samples, "dask4j_comm_bytes_total",
                Map.of("process", "scheduler", "transport", "inproc", "direction", "in"))).isPositive();
        assertThat(PrometheusTextParser.value(samples, "dask4j_comm_messages_total",
                Map.of("process", "scheduler", "transport", "inproc", "direction", "out"))).isPositive();
        assertThat(samples.stream().map(PrometheusTextParser.Sample::name)).contains("dask4j_tasks_per_second",
                "dask4j_worker_memory_bytes", "dask4j_worker_cpu_percent", "dask4j_worker_spilled_bytes");
    }

    @Test
    void answersStayBoundedWhileTensOfThousandsOfTasksAreInFlight() throws Exception {
        int n = 30_000;
        List<DaskFuture<Integer>> fs = client.map((Integer x) -> x, java.util.stream.IntStream.range(0, n).boxed().toList());
        int polls = 0;
        while (polls < 200) {
            polls++;
            for (String path : List.of("/api/v1/summary", "/api/v1/tasks/groups", "/api/v1/workers", "/api/v1/task-stream",
                    "/api/v1/traffic", "/metrics")) {
                HttpResponse<String> r = Http.get(base, path);
                assertThat(r.statusCode()).isEqualTo(200);
                assertThat(r.body().length()).as(path).isLessThan(512 * 1024);
            }
            JsonNode t = Http.json(base, "/api/v1/task-stream");
            assertThat(t.get("events").size()).isLessThanOrEqualTo(DashboardHandler.MAX_STREAM_EVENTS);
            if (fs.getLast().isDone() && fs.getFirst().isDone()) {
                break;
            }
        }
        client.waitAll(fs, Duration.ofSeconds(60));
        Http.await("the summary counts every task", Duration.ofSeconds(10),
                () -> Http.json(base, "/api/v1/summary").get("completed").asLong() >= n);
        fs.forEach(DaskFuture::release);
    }

    @Test
    void theParserRejectsMalformedText() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> PrometheusTextParser.parse("# TYPE a gauge\na{x=1} 2\n"))
                .isInstanceOf(IllegalArgumentException.class);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> PrometheusTextParser.parse("b 1\n"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void unknownPathsAre404JsonAndOtherMethodsAre405() {
        HttpResponse<String> missing = Http.get(base, "/api/v1/nope");
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(Http.parse(missing.body()).get("error").asText()).contains("/api/v1/nope");
        assertThat(Http.get(base, "/static/../pom.xml").statusCode()).isEqualTo(404);
        assertThat(Http.get(base, "/static/secret.class").statusCode()).isEqualTo(404);
        HttpResponse<String> post = Http.send(base, "POST", "/api/v1/summary");
        assertThat(post.statusCode()).isEqualTo(405);
        assertThat(post.headers().firstValue("Allow")).contains("GET, HEAD");
        assertThat(Http.send(base, "DELETE", "/").statusCode()).isEqualTo(405);
        HttpResponse<String> bad = Http.get(base, "/api/v1/task-stream?since=yesterday");
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(Http.json(base, "/api/v1/summary").get("workers").asInt()).isEqualTo(2);
    }

    @Test
    void headAnswersWithoutABodyAndThePageAndItsFilesAreServed() {
        HttpResponse<String> head = Http.send(base, "HEAD", "/api/v1/summary");
        assertThat(head.statusCode()).isEqualTo(200);
        assertThat(head.body()).isEmpty();
        HttpResponse<String> page = Http.get(base, "/");
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type").orElse("")).startsWith("text/html");
        assertThat(page.body()).contains("dask4j", "task-stream", "/static/dashboard.js").doesNotContain("http://", "https://");
        assertThat(Http.get(base, "/static/dashboard.js").body()).contains("/api/v1/summary").doesNotContain("https://");
        assertThat(Http.get(base, "/static/dashboard.css").statusCode()).isEqualTo(200);
    }

    @Test
    void concurrentPollersAllGetAnswers() throws Exception {
        List<CompletableFuture<Integer>> calls = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            String path = List.of("/api/v1/summary", "/api/v1/workers", "/api/v1/tasks/groups", "/api/v1/traffic", "/metrics").get(i % 5);
            calls.add(CompletableFuture.supplyAsync(() -> Http.get(base, path).statusCode()));
        }
        for (CompletableFuture<Integer> c : calls) {
            assertThat(c.get()).isEqualTo(200);
        }
    }
}
