package io.dask4j.bench.tasks;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Polls a dashboard's JSON API every 500 ms as an open browser page does (summary, task groups, workers,
 * task stream since the last event seen, traffic), so that {@code bench tasks --dashboard} measures the
 * scheduler while someone watches. Runs on one daemon thread until {@link #close()}.
 */
final class DashboardPoller implements AutoCloseable {
    private static final Pattern SEQ = Pattern.compile("\"seq\":(-?\\d+)");

    private final URI base;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private final Thread thread;
    private volatile boolean running = true;
    private long seq = -1;

    DashboardPoller(URI base) {
        this.base = base;
        this.thread = Thread.ofPlatform().daemon().name("bench-dashboard-poller").start(this::run);
    }

    private void run() {
        int tick = 0;
        while (running) {
            List<String> paths = List.of("/api/v1/summary", "/api/v1/tasks/groups", "/api/v1/workers",
                    "/api/v1/task-stream?since=" + seq);
            for (String p : paths) {
                fetch(p);
            }
            if (tick++ % 2 == 0) {
                fetch("/api/v1/traffic");
                fetch("/metrics");   // Micrometer's Prometheus scrape, once a second (Prometheus would every 15 s)
            }
            sleepWhileRunning(500);
        }
    }

    private void sleepWhileRunning(long ms) {
        long deadline = System.nanoTime() + ms * 1_000_000;
        while (running && System.nanoTime() - deadline < 0) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                running = false;
            }
        }
    }

    private void fetch(String path) {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString());
            requests.incrementAndGet();
            bytes.addAndGet(r.body().length());
            if (r.statusCode() != 200) {
                failures.incrementAndGet();
            } else if (path.startsWith("/api/v1/task-stream")) {
                Matcher m = SEQ.matcher(r.body());
                if (m.find() && Long.parseLong(m.group(1)) >= 0) {
                    seq = Long.parseLong(m.group(1));
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        } catch (Exception e) {
            failures.incrementAndGet();
        }
    }

    /** "N requests (F failed), B KiB" for the report. */
    String report() {
        return requests.get() + " requests (" + failures.get() + " failed), " + bytes.get() / 1024 + " KiB";
    }

    long failures() {
        return failures.get();
    }

    /** Stops after the requests in flight have been answered (at most 30 s, then interrupts). */
    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.join(30_000);
        thread.interrupt();
        thread.join(5_000);
    }
}
