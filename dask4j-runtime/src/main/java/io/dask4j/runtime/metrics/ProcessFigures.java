package io.dask4j.runtime.metrics;

import io.dask4j.comm.stats.CommTraffic;
import io.dask4j.comm.stats.PeerTraffic;
import io.dask4j.comm.stats.TrafficCounts;
import io.dask4j.comm.stats.TrafficSnapshot;
import io.dask4j.comm.stats.TransportGauges;
import io.dask4j.runtime.scheduler.ClusterView;
import io.dask4j.runtime.scheduler.WorkerView;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The comm traffic and transport gauges of one process of the cluster: the scheduler's own (read here,
 * now) or a worker process's (from its last heartbeat). Workers in the scheduler's JVM share its
 * figures, and workers sharing a process are listed once. Immutable. Reading the scheduler's own figures
 * reads its transport gauges, and some (maxima) restart at each reading: read them once per scrape or page.
 *
 * @param roles what runs in the process ({@code scheduler}, worker names)
 */
public record ProcessFigures(String name, long pid, List<String> roles, Map<String, TrafficCounts> transports,
                      List<PeerTraffic> peers, Map<String, Map<String, Double>> gauges) {
    public static final int SCHEDULER_PEERS = 32;

    /** The scheduler's process first, then one entry per worker process. Any thread. */
    public static List<ProcessFigures> of(ClusterView v) {
        long self = ProcessHandle.current().pid();
        TrafficSnapshot t = CommTraffic.snapshot();
        List<String> schedulerRoles = new ArrayList<>(List.of("scheduler"));
        Map<String, ProcessFigures> others = new LinkedHashMap<>();
        for (WorkerView w : v.workers()) {
            if (w.pid() == self) {
                schedulerRoles.add(w.name());
                continue;
            }
            String key = w.pid() == 0 ? w.id() : Long.toString(w.pid());
            ProcessFigures known = others.get(key);
            if (known == null) {
                others.put(key, new ProcessFigures(w.name(), w.pid(), new ArrayList<>(List.of(w.name())),
                        w.metrics().traffic(), w.metrics().peers(), w.metrics().gauges()));
            } else {
                known.roles().add(w.name());
            }
        }
        List<ProcessFigures> out = new ArrayList<>();
        out.add(new ProcessFigures("scheduler", self, schedulerRoles, t.transports(), t.topPeers(SCHEDULER_PEERS),
                TransportGauges.snapshot()));
        out.addAll(others.values());
        return out;
    }
}
