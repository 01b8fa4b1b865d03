package io.dask4j.runtime.dashboard;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dask4j.comm.stats.PeerTraffic;
import io.dask4j.comm.stats.TrafficCounts;
import io.dask4j.runtime.protocol.WorkerMetrics;
import io.dask4j.runtime.metrics.ProcessFigures;
import io.dask4j.runtime.scheduler.ClusterView;
import io.dask4j.runtime.scheduler.TaskGroupView;
import io.dask4j.runtime.scheduler.TaskStatus;
import io.dask4j.runtime.scheduler.TaskStreamEvent;
import io.dask4j.runtime.scheduler.WorkerView;

import java.util.List;
import java.util.Map;

/**
 * The JSON documents of the dashboard's API, built from a {@link ClusterView} (and, for traffic, from
 * {@link ProcessFigures}). Field names are snake_case; sizes are bytes, times seconds unless the name
 * says {@code _ms}. Every document is bounded by the number of workers, task groups and sampled events,
 * never by the number of tasks. Stateless and thread-safe.
 */
final class DashboardJson {
    static final ObjectMapper MAPPER = new ObjectMapper();

    private DashboardJson() {
    }

    static ObjectNode summary(ClusterView v, String dashboardUrl) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("version", v.version());
        o.put("time_ms", v.takenAtMillis());
        o.put("uptime_s", (v.takenAtMillis() - v.startedAtMillis()) / 1000.0);
        ObjectNode s = o.putObject("scheduler");
        addAll(s.putArray("addresses"), v.addresses());
        s.put("pid", ProcessHandle.current().pid());
        s.put("dashboard", dashboardUrl);
        ObjectNode tasks = o.putObject("tasks");
        long total = 0;
        for (TaskStatus st : TaskStatus.values()) {
            if (st != TaskStatus.FORGOTTEN) {
                tasks.put(st.label(), v.count(st));
                total += v.count(st);
            }
        }
        o.put("tasks_total", total);
        o.put("completed", v.tasksCompleted());
        o.put("erred", v.tasksErred());
        o.put("tasks_per_second", round(v.tasksPerSecond()));
        o.put("workers", v.workers().size());
        o.put("threads", v.workers().stream().mapToInt(WorkerView::nthreads).sum());
        o.put("clients", v.clients());
        o.put("workers_lost", v.workersLost());
        ObjectNode mem = o.putObject("memory");
        mem.put("used", v.workers().stream().mapToLong(w -> w.metrics().memoryBytes()).sum());
        mem.put("limit", v.workers().stream().mapToLong(WorkerView::memoryLimit).sum());
        mem.put("spilled", v.workers().stream().mapToLong(w -> w.metrics().spilledBytes()).sum());
        o.put("stream_seq", v.streamSeq());
        return o;
    }

    static ObjectNode workers(ClusterView v) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("version", v.version());
        ArrayNode a = o.putArray("workers");
        for (WorkerView w : v.workers()) {
            WorkerMetrics m = w.metrics();
            ObjectNode n = a.addObject();
            n.put("id", w.id());
            n.put("name", w.name());
            addAll(n.putArray("addresses"), w.addresses());
            n.put("pid", w.pid());
            n.put("nthreads", w.nthreads());
            n.put("memory_limit", w.memoryLimit());
            n.put("memory", m.memoryBytes());
            n.put("spilled", m.spilledBytes());
            n.put("heap_used", m.heapUsedBytes());
            n.put("heap_max", m.heapMaxBytes());
            n.put("cpu", round(m.cpuPercent()));
            n.put("processing", w.processing());
            n.put("keys_in_memory", w.keysInMemory());
            n.put("bytes_in_memory", w.bytesInMemory());
            n.put("tasks_completed", w.tasksCompleted());
            n.put("last_seen_s", round(w.lastSeenSecondsAgo()));
        }
        return o;
    }

    static ObjectNode groups(ClusterView v) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("version", v.version());
        ArrayNode a = o.putArray("groups");
        for (TaskGroupView g : v.groups()) {
            ObjectNode n = a.addObject();
            n.put("name", g.name());
            n.put("total", g.total());
            n.put("completed", g.completed());
            n.put("erred", g.erred());
            n.put("waiting", g.waiting());
            n.put("processing", g.processing());
            n.put("memory", g.inMemory());
            n.put("released", g.released());
            n.put("erred_now", g.erredNow());
            n.put("bytes", g.bytesInMemory());
            n.put("compute_s", round(g.computeSeconds()));
        }
        return o;
    }

    /** Events as rows of {@code columns}, plus the workers the rows point at by index. */
    static ObjectNode taskStream(ClusterView v, List<TaskStreamEvent> events) {
        ObjectNode o = MAPPER.createObjectNode();
        long last = events.isEmpty() ? -1 : events.getLast().seq();
        o.put("seq", last);
        o.put("stream_seq", v.streamSeq());
        o.put("time_ms", v.takenAtMillis());
        ArrayNode ws = o.putArray("workers");
        Map<String, Integer> index = new java.util.HashMap<>();
        for (WorkerView w : v.workers()) {
            index.put(w.id(), index.size());
            ObjectNode n = ws.addObject();
            n.put("id", w.id());
            n.put("name", w.name());
            n.put("nthreads", w.nthreads());
        }
        addAll(o.putArray("columns"), List.of("seq", "worker", "group", "key", "start_ms", "stop_ms"));
        ArrayNode rows = o.putArray("events");
        for (TaskStreamEvent e : events) {
            Integer wi = index.get(e.worker());
            if (wi == null) {
                index.put(e.worker(), wi = index.size());
                ObjectNode n = ws.addObject();
                n.put("id", e.worker());
                n.put("name", e.worker() + " (gone)");
                n.put("nthreads", 1);
            }
            ArrayNode r = rows.addArray();
            r.add(e.seq()).add(wi).add(e.group()).add(e.key()).add(e.startMicros() / 1000.0).add(e.stopMicros() / 1000.0);
        }
        return o;
    }

    static ObjectNode counts(TrafficCounts c) {
        ObjectNode n = MAPPER.createObjectNode();
        n.put("bytes_in", c.bytesIn());
        n.put("bytes_out", c.bytesOut());
        n.put("messages_in", c.messagesIn());
        n.put("messages_out", c.messagesOut());
        return n;
    }

    static ObjectNode traffic(List<ProcessFigures> processes) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("time_ms", System.currentTimeMillis());
        ArrayNode a = o.putArray("processes");
        for (ProcessFigures p : processes) {
            ObjectNode n = a.addObject();
            n.put("name", p.name());
            n.put("pid", p.pid());
            addAll(n.putArray("roles"), p.roles());
            ObjectNode ts = n.putObject("transports");
            p.transports().forEach((scheme, c) -> ts.set(scheme, counts(c)));
            ArrayNode ps = n.putArray("peers");
            for (PeerTraffic peer : p.peers()) {
                ObjectNode pn = counts(peer.counts());
                pn.put("transport", peer.transport());
                pn.put("peer", peer.peer());
                pn.put("identity", peer.identity());
                pn.put("open", peer.openComms());
                ps.add(pn);
            }
            ObjectNode gs = n.putObject("gauges");
            p.gauges().forEach((source, values) -> {
                ObjectNode g = gs.putObject(source);
                values.forEach((k, val) -> g.put(k, Double.isFinite(val) ? round(val) : 0));
            });
        }
        return o;
    }

    static ObjectNode error(int status, String message) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("status", status);
        o.put("error", message);
        return o;
    }

    private static void addAll(ArrayNode a, List<String> values) {
        values.forEach(a::add);
    }

    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }
}
