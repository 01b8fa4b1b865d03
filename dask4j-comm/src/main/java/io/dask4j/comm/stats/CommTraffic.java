package io.dask4j.comm.stats;

import java.lang.ref.Cleaner;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Process-wide comm traffic per transport and per peer, fed by every handshaken comm (the comm core
 * counts each message's wire size once, for every backend). Read by the dashboard, the {@code /metrics}
 * endpoint and worker heartbeats through {@link #snapshot()}.
 *
 * <p>Bounded: at most {@link #MAX_PEERS} peers are tracked one by one. When the table is full, a peer
 * without open comms is folded into its transport's {@link #CLOSED_PEERS} row to make room; if every
 * tracked peer has open comms, the newcomer is counted in {@link #OTHER_PEERS}. Transport totals stay
 * exact either way.
 *
 * <p>Thread-safe. Opening, retiring and snapshots take one lock (they happen per connection or per
 * report, not per message); counting a message is lock-free ({@link CommCounters}).
 */
public final class CommTraffic {
    public static final int MAX_PEERS = 256;
    /** Peer label of the row collecting peers beyond {@link #MAX_PEERS}. */
    public static final String OTHER_PEERS = "(other peers)";
    /** Peer label of the row collecting peers whose comms all closed and whose row was reclaimed. */
    public static final String CLOSED_PEERS = "(closed connections)";

    private static final Object LOCK = new Object();
    private static final Map<List<String>, Entry> ENTRIES = new LinkedHashMap<>();
    private static final Cleaner CLEANER = Cleaner.create();
    private static int tracked;

    /** Totals of one peer row. Guarded by {@link #LOCK}. */
    static final class Entry {
        final String transport;
        final String peer;
        final String identity;
        final boolean aggregate;
        final Set<CommCounters> open = new HashSet<>();
        TrafficCounts closed = TrafficCounts.ZERO;

        Entry(String transport, String peer, String identity, boolean aggregate) {
            this.transport = transport;
            this.peer = peer;
            this.identity = identity;
            this.aggregate = aggregate;
        }

        TrafficCounts total() {
            TrafficCounts t = closed;
            for (CommCounters c : open) {
                t = t.plus(c.counts());
            }
            return t;
        }
    }

    private CommTraffic() {
    }

    /**
     * Counters for a new comm of {@code transport} (a scheme) to {@code peer}. If {@code owner} becomes
     * unreachable without having been closed, its counters are retired then.
     */
    public static CommCounters open(String transport, String peer, String identity, Object owner) {
        CommCounters counters;
        synchronized (LOCK) {
            Entry e = ENTRIES.get(List.of(transport, peer, identity));
            if (e == null) {
                e = tracked < MAX_PEERS || reclaimOne() ? newEntry(transport, peer, identity)
                        : aggregate(transport, OTHER_PEERS);
            }
            counters = new CommCounters(e);
            e.open.add(counters);
        }
        CLEANER.register(owner, counters::retire);
        return counters;
    }

    static void retire(CommCounters c) {
        synchronized (LOCK) {
            if (!c.markRetired()) {
                return;
            }
            Entry e = c.entry;
            if (e.open.remove(c)) {
                e.closed = e.closed.plus(c.counts());
            }
        }
    }

    /** Totals per transport and per peer (biggest first). */
    public static TrafficSnapshot snapshot() {
        Map<String, TrafficCounts> transports = new TreeMap<>();
        List<PeerTraffic> peers = new ArrayList<>();
        synchronized (LOCK) {
            for (Entry e : ENTRIES.values()) {
                TrafficCounts t = e.total();
                transports.merge(e.transport, t, TrafficCounts::plus);
                peers.add(new PeerTraffic(e.transport, e.peer, e.identity, e.open.size(), t));
            }
        }
        peers.sort(Comparator.comparingLong((PeerTraffic p) -> p.counts().bytes()).reversed());
        return new TrafficSnapshot(transports, peers);
    }

    private static Entry newEntry(String transport, String peer, String identity) {
        Entry e = new Entry(transport, peer, identity, false);
        ENTRIES.put(List.of(transport, peer, identity), e);
        tracked++;
        return e;
    }

    private static Entry aggregate(String transport, String label) {
        return ENTRIES.computeIfAbsent(List.of(transport, label, ""), k -> new Entry(transport, label, "", true));
    }

    /** Folds the oldest peer without open comms into its transport's closed row; false if there is none. */
    private static boolean reclaimOne() {
        for (Entry e : ENTRIES.values()) {
            if (!e.aggregate && e.open.isEmpty()) {
                ENTRIES.remove(List.of(e.transport, e.peer, e.identity));
                tracked--;
                Entry closed = aggregate(e.transport, CLOSED_PEERS);
                closed.closed = closed.closed.plus(e.closed);
                return true;
            }
        }
        return false;
    }
}
