package io.dask4j.runtime.protocol;

import io.dask4j.comm.Message;
import io.dask4j.comm.stats.CommTraffic;
import io.dask4j.comm.stats.PeerTraffic;
import io.dask4j.comm.stats.TrafficCounts;
import io.dask4j.comm.stats.TrafficSnapshot;
import io.dask4j.comm.stats.TransportGauges;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a worker reports about its process in each heartbeat, for the dashboard and {@code /metrics}:
 * memory held and spilled, CPU, heap, and the process's comm traffic and transport gauges (for example
 * the MPI progress engine's). Immutable.
 *
 * <p>{@link #collect} runs on the worker's heartbeat thread; {@link #from} on the scheduler's event loop.
 * Parsing is lenient (a missing or odd field reads as zero or empty) so an older worker's heartbeat
 * still counts, and it never throws.
 *
 * @param cpuPercent the process's CPU use, 100 per busy core
 * @param traffic bytes and messages per transport scheme of the worker's process
 * @param peers the process's busiest peers (at most {@link #MAX_PEERS})
 * @param gauges {@link TransportGauges} of the worker's process, by source
 */
public record WorkerMetrics(long memoryBytes, long spilledBytes, double cpuPercent, long heapUsedBytes,
                            long heapMaxBytes, Map<String, TrafficCounts> traffic, List<PeerTraffic> peers,
                            Map<String, Map<String, Double>> gauges) {
    public static final int MAX_PEERS = 16;
    public static final WorkerMetrics EMPTY = new WorkerMetrics(0, 0, 0, 0, 0, Map.of(), List.of(), Map.of());
    /** Per heartbeat thread: process CPU time and wall time of its previous reading. */
    private static final ThreadLocal<long[]> LAST_CPU = ThreadLocal.withInitial(() -> new long[2]);

    public WorkerMetrics {
        traffic = Map.copyOf(traffic);
        peers = List.copyOf(peers);
        gauges = Map.copyOf(gauges);
    }

    /** This process's figures now, with the worker's own {@code memoryBytes} and {@code spilledBytes}. */
    public static WorkerMetrics collect(long memoryBytes, long spilledBytes) {
        Runtime rt = Runtime.getRuntime();
        TrafficSnapshot t = CommTraffic.snapshot();
        return new WorkerMetrics(memoryBytes, spilledBytes, processCpuPercent(), rt.totalMemory() - rt.freeMemory(),
                rt.maxMemory(), t.transports(), t.topPeers(MAX_PEERS), TransportGauges.snapshot());
    }

    /**
     * CPU of this process since the calling thread's previous call (each worker's heartbeat thread gets
     * its own interval, so workers sharing a JVM do not steal each other's), 100 per busy core; 0 on the
     * first call or when the JVM cannot tell.
     */
    public static double processCpuPercent() {
        if (!(ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os)) {
            return 0;
        }
        long cpuNs = os.getProcessCpuTime();
        long nowNs = System.nanoTime();
        long[] last = LAST_CPU.get();
        double percent = 0;
        if (last[1] != 0 && cpuNs >= 0 && nowNs > last[1]) {
            percent = 100.0 * (cpuNs - last[0]) / (nowNs - last[1]);
        }
        last[0] = cpuNs;
        last[1] = nowNs;
        return Math.max(0, percent);
    }

    /** The heartbeat's fields. */
    public Map<String, Object> toFields() {
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("memory", memoryBytes);
        f.put("spilled", spilledBytes);
        f.put("cpu", cpuPercent);
        f.put("heap_used", heapUsedBytes);
        f.put("heap_max", heapMaxBytes);
        Map<String, Object> tr = new LinkedHashMap<>();
        traffic.forEach((scheme, c) -> tr.put(scheme, counts(c)));
        f.put("traffic", tr);
        List<Object> ps = new ArrayList<>();
        for (PeerTraffic p : peers) {
            List<Object> row = new ArrayList<>(List.of(p.transport(), p.peer(), p.identity(), (long) p.openComms()));
            row.addAll(counts(p.counts()));
            ps.add(row);
        }
        f.put("peers", ps);
        Map<String, Object> gs = new LinkedHashMap<>();
        gauges.forEach((source, values) -> gs.put(source, new LinkedHashMap<String, Object>(values)));
        f.put("gauges", gs);
        return f;
    }

    private static List<Object> counts(TrafficCounts c) {
        return List.of(c.bytesIn(), c.bytesOut(), c.messagesIn(), c.messagesOut());
    }

    /** Reads a heartbeat; whatever is missing or malformed reads as zero or empty. */
    public static WorkerMetrics from(Message m) {
        Map<String, Object> f = m.fields();
        Map<String, TrafficCounts> traffic = new TreeMap<>();
        if (f.get("traffic") instanceof Map<?, ?> tr) {
            tr.forEach((k, v) -> {
                TrafficCounts c = counts(v, 0);
                if (k instanceof String scheme && c != null) {
                    traffic.put(scheme, c);
                }
            });
        }
        List<PeerTraffic> peers = new ArrayList<>();
        if (f.get("peers") instanceof List<?> ps) {
            for (Object o : ps) {
                if (peers.size() < MAX_PEERS && o instanceof List<?> row && row.size() == 8
                        && row.get(0) instanceof String transport && row.get(1) instanceof String peer
                        && row.get(2) instanceof String identity && row.get(3) instanceof Number open) {
                    TrafficCounts c = counts(row, 4);
                    if (c != null) {
                        peers.add(new PeerTraffic(transport, peer, identity, open.intValue(), c));
                    }
                }
            }
        }
        Map<String, Map<String, Double>> gauges = new TreeMap<>();
        if (f.get("gauges") instanceof Map<?, ?> gs) {
            gs.forEach((source, values) -> {
                if (source instanceof String s && values instanceof Map<?, ?> vs) {
                    Map<String, Double> out = new TreeMap<>();
                    vs.forEach((k, v) -> {
                        if (k instanceof String name && v instanceof Number n) {
                            out.put(name, n.doubleValue());
                        }
                    });
                    gauges.put(s, out);
                }
            });
        }
        return new WorkerMetrics(number(f, "memory"), number(f, "spilled"), f.get("cpu") instanceof Number n ? n.doubleValue() : 0,
                number(f, "heap_used"), number(f, "heap_max"), traffic, peers, gauges);
    }

    private static long number(Map<String, Object> f, String name) {
        return f.get(name) instanceof Number n ? n.longValue() : 0;
    }

    private static TrafficCounts counts(Object o, int from) {
        if (o instanceof List<?> l && l.size() >= from + 4 && l.get(from) instanceof Number a && l.get(from + 1) instanceof Number b
                && l.get(from + 2) instanceof Number c && l.get(from + 3) instanceof Number d) {
            return new TrafficCounts(a.longValue(), b.longValue(), c.longValue(), d.longValue());
        }
        return null;
    }
}
