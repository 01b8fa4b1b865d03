package io.dask4j.comm.stats;

import java.util.List;
import java.util.Map;

/**
 * This process's comm traffic at a moment: totals per transport scheme ({@code tcp}, {@code inproc},
 * {@code mpi}) and per peer, biggest first. Immutable.
 */
public record TrafficSnapshot(Map<String, TrafficCounts> transports, List<PeerTraffic> peers) {
    public TrafficSnapshot {
        transports = Map.copyOf(transports);
        peers = List.copyOf(peers);
    }

    /** The first {@code n} peers (they are sorted by bytes, biggest first). */
    public List<PeerTraffic> topPeers(int n) {
        return peers.size() <= n ? peers : peers.subList(0, n);
    }
}
