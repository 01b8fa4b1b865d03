package io.dask4j.runtime.dashboard;

import io.dask4j.comm.stats.TrafficCounts;
import io.dask4j.runtime.scheduler.ClusterView;
import io.dask4j.runtime.scheduler.TaskStatus;
import io.dask4j.runtime.scheduler.WorkerView;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The {@code /metrics} document in Prometheus' text exposition format (version 0.0.4): task counts by
 * state, throughput, workers and their memory, comm bytes and messages per process and transport, and
 * every {@link io.dask4j.comm.stats.TransportGauges} figure (for MPI, the progress engine's passes per
 * second, idle fraction, pending requests) per process. Stateless and thread-safe.
 */
final class PrometheusText {
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final StringBuilder out = new StringBuilder(4096);

    private PrometheusText() {
    }

    static String render(ClusterView v, List<ProcessFigures> processes) {
        PrometheusText p = new PrometheusText();
        p.family("dask4j_tasks", "gauge", "Tasks known to the scheduler, by state.");
        for (TaskStatus s : TaskStatus.values()) {
            if (s != TaskStatus.FORGOTTEN) {
                p.sample("dask4j_tasks", v.count(s), "state", s.label());
            }
        }
        p.single("dask4j_tasks_completed_total", "counter", "Tasks that finished successfully.", v.tasksCompleted());
        p.single("dask4j_tasks_erred_total", "counter", "Tasks that erred.", v.tasksErred());
        p.single("dask4j_tasks_per_second", "gauge", "Tasks finished per second over the last few seconds.", v.tasksPerSecond());
        p.single("dask4j_workers", "gauge", "Workers registered.", v.workers().size());
        p.single("dask4j_workers_lost_total", "counter", "Workers removed after dying or going silent.", v.workersLost());
        p.single("dask4j_clients", "gauge", "Clients connected.", v.clients());
        p.workerFamily(v, "dask4j_worker_threads", "Task threads of a worker.", WorkerView::nthreads);
        p.workerFamily(v, "dask4j_worker_memory_bytes", "Bytes a worker holds in memory.", w -> w.metrics().memoryBytes());
        p.workerFamily(v, "dask4j_worker_memory_limit_bytes", "A worker's memory limit (0: none).", WorkerView::memoryLimit);
        p.workerFamily(v, "dask4j_worker_spilled_bytes", "Bytes a worker spilled to disk.", w -> w.metrics().spilledBytes());
        p.workerFamily(v, "dask4j_worker_cpu_percent", "CPU of a worker's process, 100 per busy core.", w -> w.metrics().cpuPercent());
        p.workerFamily(v, "dask4j_worker_processing_tasks", "Tasks assigned to a worker and not finished.", WorkerView::processing);
        p.workerFamily(v, "dask4j_worker_tasks_completed_total", "Tasks a worker finished.", WorkerView::tasksCompleted);
        p.comm(processes, "dask4j_comm_bytes_total", "Comm bytes (wire size) by process, transport and direction.", true);
        p.comm(processes, "dask4j_comm_messages_total", "Comm messages by process, transport and direction.", false);
        p.gauges(processes);
        return p.out.toString();
    }

    private interface WorkerValue {
        double of(WorkerView w);
    }

    private void workerFamily(ClusterView v, String name, String help, WorkerValue value) {
        family(name, name.endsWith("_total") ? "counter" : "gauge", help);
        for (WorkerView w : v.workers()) {
            sample(name, value.of(w), "worker", w.name(), "address", w.id());
        }
    }

    private void comm(List<ProcessFigures> processes, String name, String help, boolean bytes) {
        family(name, "counter", help);
        for (ProcessFigures p : processes) {
            for (Map.Entry<String, TrafficCounts> e : p.transports().entrySet()) {
                TrafficCounts c = e.getValue();
                sample(name, bytes ? c.bytesIn() : c.messagesIn(), "process", p.name(), "transport", e.getKey(), "direction", "in");
                sample(name, bytes ? c.bytesOut() : c.messagesOut(), "process", p.name(), "transport", e.getKey(), "direction", "out");
            }
        }
    }

    /** One family per gauge name ({@code dask4j_transport_<source>_<gauge>}), one sample per process. */
    private void gauges(List<ProcessFigures> processes) {
        Map<String, Map<String, Double>> byMetric = new TreeMap<>();
        for (ProcessFigures p : processes) {
            p.gauges().forEach((source, values) -> values.forEach((gauge, value) ->
                    byMetric.computeIfAbsent("dask4j_transport_" + sanitize(source) + "_" + sanitize(gauge), k -> new TreeMap<>())
                            .put(p.name(), value)));
        }
        byMetric.forEach((name, perProcess) -> {
            family(name, name.endsWith("_total") ? "counter" : "gauge", "Transport gauge published by the comm layer.");
            perProcess.forEach((process, value) -> sample(name, value, "process", process));
        });
    }

    private void single(String name, String type, String help, double value) {
        family(name, type, help);
        sample(name, value);
    }

    private void family(String name, String type, String help) {
        out.append("# HELP ").append(name).append(' ').append(help).append('\n');
        out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    }

    private void sample(String name, double value, String... labels) {
        out.append(name);
        if (labels.length > 0) {
            out.append('{');
            for (int i = 0; i < labels.length; i += 2) {
                if (i > 0) {
                    out.append(',');
                }
                out.append(labels[i]).append("=\"").append(escape(labels[i + 1])).append('"');
            }
            out.append('}');
        }
        out.append(' ').append(format(value)).append('\n');
    }

    static String format(double v) {
        if (Double.isNaN(v)) {
            return "NaN";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "+Inf" : "-Inf";
        }
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        return String.format(Locale.ROOT, "%.6g", v);
    }

    static String sanitize(String s) {
        String n = s.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
        return n.isEmpty() || Character.isDigit(n.charAt(0)) ? "_" + n : n;
    }

    private static String escape(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }
}
