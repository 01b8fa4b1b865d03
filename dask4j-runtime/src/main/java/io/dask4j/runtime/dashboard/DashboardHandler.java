package io.dask4j.runtime.dashboard;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.dask4j.runtime.metrics.ClusterMetrics;
import io.dask4j.runtime.metrics.ProcessFigures;
import io.dask4j.runtime.scheduler.ClusterView;
import io.dask4j.runtime.scheduler.Scheduler;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Routes every dashboard request. A request whose {@code Host} header {@link HostHeaderCheck} refuses gets
 * 403 and nothing else. GET and HEAD only (anything else: 405 with {@code Allow}); request
 * bodies are never read; unknown paths get a 404 JSON error; a scheduler too busy to publish a view
 * gets 503. Runs on the dashboard's HTTP threads, reading only published views.
 *
 * <pre>
 *   /                        the page                /api/v1/workers        workers
 *   /static/{file}           its script and style    /api/v1/tasks/groups   progress per task group
 *   /api/v1/summary          counts, throughput      /api/v1/task-stream?since=SEQ  finished tasks after SEQ
 *   /api/v1/traffic          comm traffic per process, transport and peer; transport gauges
 *   /metrics                 Prometheus text: {@link ClusterMetrics} through Micrometer's Prometheus registry
 * </pre>
 */
final class DashboardHandler implements HttpHandler {
    private static final Logger LOG = LoggerFactory.getLogger(DashboardHandler.class);
    /** Most task-stream events in one answer (a page polling every second gets all that was published). */
    static final int MAX_STREAM_EVENTS = 1_000;
    private static final String JSON = "application/json; charset=utf-8";
    /** What {@link PrometheusMeterRegistry#scrape()} writes: Prometheus' text format, version 0.0.4. */
    private static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";
    private static final long REFUSAL_LOG_INTERVAL_NS = 60_000_000_000L;

    private final Scheduler scheduler;
    private final String url;
    private final StaticFiles files = new StaticFiles();
    /** Refreshed at each scrape, under its lock: no thread of its own, no work while nobody scrapes. */
    private final ClusterMetrics metrics;
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final HostHeaderCheck hosts;
    private final AtomicLong lastRefusalLogNs = new AtomicLong(System.nanoTime() - REFUSAL_LOG_INTERVAL_NS);

    DashboardHandler(Scheduler scheduler, String url, HostHeaderCheck hosts) {
        this.scheduler = scheduler;
        this.hosts = hosts;
        this.url = url;
        this.metrics = new ClusterMetrics(scheduler::view, java.time.Duration.ZERO);
    }

    @Override
    public void handle(HttpExchange ex) throws IOException {
        try {
            String host = ex.getRequestHeaders().getFirst("Host");
            if (!hosts.allows(host)) {
                logRefusal(ex, host);
                json(ex, 403, DashboardJson.error(403, "Host '" + host + "' is not this dashboard's; open it by "
                        + "127.0.0.1, localhost or its IP address, or allow the name in the dashboard's allowed hosts"));
                return;
            }
            String method = ex.getRequestMethod();
            if (!method.equals("GET") && !method.equals("HEAD")) {
                ex.getResponseHeaders().set("Allow", "GET, HEAD");
                json(ex, 405, DashboardJson.error(405, "method " + method + " not allowed; use GET"));
                return;
            }
            route(ex, ex.getRequestURI().getPath(), ex.getRequestURI().getRawQuery());
        } catch (BadRequest e) {
            json(ex, 400, DashboardJson.error(400, e.getMessage()));
        } catch (IllegalStateException e) {
            json(ex, 503, DashboardJson.error(503, "scheduler busy: " + e.getMessage()));
        } catch (IOException e) {
            LOG.debug("dashboard client went away: {}", e.toString());
        } catch (RuntimeException e) {
            LOG.warn("dashboard request {} failed", ex.getRequestURI(), e);
            json(ex, 500, DashboardJson.error(500, String.valueOf(e)));
        } finally {
            ex.close();
        }
    }

    /** At most one WARN a minute: a page probing in a loop must not fill the log. */
    private void logRefusal(HttpExchange ex, String host) {
        long now = System.nanoTime();
        long last = lastRefusalLogNs.get();
        if (now - last >= REFUSAL_LOG_INTERVAL_NS && lastRefusalLogNs.compareAndSet(last, now)) {
            LOG.warn("dashboard refused a request from {} with Host '{}' (DNS rebinding?); further refusals within a "
                    + "minute are not logged", ex.getRemoteAddress(), host);
        }
    }

    private void route(HttpExchange ex, String path, String query) throws IOException {
        switch (path) {
            case "/", "/index.html" -> file(ex, "index.html");
            case "/api/v1/summary" -> json(ex, 200, DashboardJson.summary(scheduler.view(), url));
            case "/api/v1/workers" -> json(ex, 200, DashboardJson.workers(scheduler.view()));
            case "/api/v1/tasks/groups" -> json(ex, 200, DashboardJson.groups(scheduler.view()));
            case "/api/v1/task-stream" -> {
                long since = since(query);
                ClusterView v = scheduler.view();
                json(ex, 200, DashboardJson.taskStream(v, scheduler.taskStream(since, MAX_STREAM_EVENTS)));
            }
            case "/api/v1/traffic" -> json(ex, 200, DashboardJson.traffic(ProcessFigures.of(scheduler.view())));
            case "/metrics" -> send(ex, 200, PROMETHEUS_TEXT, scrape());
            default -> {
                byte[] body = path.startsWith("/static/") ? files.get(path.substring("/static/".length())) : null;
                if (body == null) {
                    json(ex, 404, DashboardJson.error(404, "no such page: " + path));
                } else {
                    send(ex, 200, StaticFiles.TYPES.get(path.substring("/static/".length())), body);
                }
            }
        }
    }

    /** The metrics in Prometheus' text format (0.0.4), refreshed from a view published now. */
    private byte[] scrape() {
        synchronized (metrics) {
            if (registry.getMeters().isEmpty()) {
                metrics.bindTo(registry);   // binding refreshes
            } else {
                metrics.refresh();
            }
            return registry.scrape().getBytes(StandardCharsets.UTF_8);
        }
    }

    private void file(HttpExchange ex, String name) throws IOException {
        send(ex, 200, StaticFiles.TYPES.get(name), files.get(name));
    }

    /** The {@code since} query parameter: -1 (everything still held) when absent. */
    static long since(String rawQuery) {
        if (rawQuery == null || rawQuery.isEmpty()) {
            return -1;
        }
        for (String part : rawQuery.split("&")) {
            if (part.startsWith("since=")) {
                try {
                    return Long.parseLong(part.substring("since=".length()));
                } catch (NumberFormatException e) {
                    throw new BadRequest("since must be an integer sequence number, got '" + part.substring(6) + "'");
                }
            }
        }
        return -1;
    }

    private static void json(HttpExchange ex, int status, ObjectNode body) throws IOException {
        byte[] bytes;
        try {
            bytes = DashboardJson.MAPPER.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IOException(e);
        }
        send(ex, status, JSON, bytes);
    }

    private static void send(HttpExchange ex, int status, String type, byte[] body) throws IOException {
        ex.getResponseHeaders().set("Content-Type", type);
        ex.getResponseHeaders().set("Cache-Control", "no-store");
        ex.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
        if (ex.getRequestMethod().equals("HEAD")) {
            ex.getResponseHeaders().set("Content-Length", Integer.toString(body.length));
            ex.sendResponseHeaders(status, -1);
            return;
        }
        ex.sendResponseHeaders(status, body.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(body);
        }
    }

    /** A malformed query: 400. */
    static final class BadRequest extends RuntimeException {
        BadRequest(String message) {
            super(message);
        }
    }
}
