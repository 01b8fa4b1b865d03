package io.dask4j.runtime.metrics;

import io.dask4j.runtime.scheduler.ClusterView;
import io.dask4j.runtime.scheduler.Scheduler;
import io.dask4j.runtime.scheduler.TaskStatus;
import io.dask4j.runtime.scheduler.WorkerView;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * A cluster's figures as Micrometer meters, read from its scheduler's {@link ClusterView}: tasks by state,
 * completed and erred, throughput, workers, clients; per worker its threads, memory, memory limit, spill, CPU,
 * processing and completed tasks; per process (the scheduler's and each worker JVM's) comm bytes and messages by
 * transport, and the transports' gauges (the MPI progress engine's). Bind it in the scheduler's JVM:
 *
 * <pre>{@code
 * ClusterMetrics metrics = new ClusterMetrics(cluster.scheduler());   // refreshed every 5 s once bound
 * metrics.bindTo(registry);                                           // any MeterRegistry
 * }</pre>
 *
 * <p>The names, as Prometheus shows them, are those of the dashboard's {@code /metrics}, which serves this binder
 * through Micrometer's Prometheus registry (see docs/observability.md). Thread-safe, as {@link RowMeters}.
 */
public final class ClusterMetrics extends RowMeters {
    public static final Duration DEFAULT_REFRESH = Duration.ofSeconds(5);

    private final Supplier<ClusterView> views;

    /** Meters of {@code scheduler}'s cluster, refreshed every {@link #DEFAULT_REFRESH} once bound. */
    public ClusterMetrics(Scheduler scheduler) {
        this(scheduler::view, DEFAULT_REFRESH);
    }

    /** Meters of the views {@code views} gives, refreshed every {@code refreshEvery} (never if zero). */
    public ClusterMetrics(Supplier<ClusterView> views, Duration refreshEvery) {
        super(refreshEvery);
        this.views = views;
    }

    @Override
    protected Map<MetricRow, Double> read() {
        ClusterView v = views.get();
        Map<MetricRow, Double> out = new HashMap<>();
        for (TaskStatus s : TaskStatus.values()) {
            if (s != TaskStatus.FORGOTTEN) {
                out.put(MetricRow.gauge("dask4j.tasks", "Tasks known to the scheduler, by state.", "state", s.label()), (double) v.count(s));
            }
        }
        out.put(MetricRow.counter("dask4j.tasks.completed", "Tasks that finished successfully."), (double) v.tasksCompleted());
        out.put(MetricRow.counter("dask4j.tasks.erred", "Tasks that erred."), (double) v.tasksErred());
        out.put(MetricRow.gauge("dask4j.tasks.per.second", "Tasks finished per second over the last few seconds."), v.tasksPerSecond());
        out.put(MetricRow.gauge("dask4j.workers", "Workers registered."), (double) v.workers().size());
        out.put(MetricRow.counter("dask4j.workers.lost", "Workers removed after dying or going silent."), (double) v.workersLost());
        out.put(MetricRow.gauge("dask4j.clients", "Clients connected."), (double) v.clients());
        worker(out, v, "dask4j.worker.threads", false, "Task threads of a worker.", WorkerView::nthreads);
        worker(out, v, "dask4j.worker.memory.bytes", false, "Bytes a worker holds in memory.", w -> w.metrics().memoryBytes());
        worker(out, v, "dask4j.worker.memory.limit.bytes", false, "A worker's memory limit (0: none).", WorkerView::memoryLimit);
        worker(out, v, "dask4j.worker.spilled.bytes", false, "Bytes a worker spilled to disk.", w -> w.metrics().spilledBytes());
        worker(out, v, "dask4j.worker.cpu.percent", false, "CPU of a worker's process, 100 per busy core.", w -> w.metrics().cpuPercent());
        worker(out, v, "dask4j.worker.processing.tasks", false, "Tasks assigned to a worker and not finished.", WorkerView::processing);
        worker(out, v, "dask4j.worker.tasks.completed", true, "Tasks a worker finished.", WorkerView::tasksCompleted);
        List<ProcessFigures> processes = ProcessFigures.of(v);
        for (ProcessFigures p : processes) {
            ProcessRows.add(out, p.name(), p.transports(), p.gauges());
        }
        return out;
    }

    private static void worker(Map<MetricRow, Double> out, ClusterView v, String name, boolean counter, String help,
                               ToDoubleFunction<WorkerView> value) {
        for (WorkerView w : v.workers()) {
            String[] tags = {"worker", w.name(), "address", w.id()};
            out.put(counter ? MetricRow.counter(name, help, tags) : MetricRow.gauge(name, help, tags), value.applyAsDouble(w));
        }
    }
}
