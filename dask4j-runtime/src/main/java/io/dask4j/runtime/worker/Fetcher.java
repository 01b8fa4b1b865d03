package io.dask4j.runtime.worker;

import io.dask4j.comm.serialize.SerializationException;
import io.dask4j.comm.serialize.Deserializer;
import io.dask4j.comm.Message;
import io.dask4j.comm.RateLimitedLog;
import io.dask4j.runtime.protocol.Codec;
import io.dask4j.runtime.protocol.ConnectionPool;
import io.dask4j.runtime.protocol.DataTransferEvent;
import io.dask4j.runtime.protocol.Ops;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.LoggerFactory;

/**
 * Fetches task inputs straight from the workers holding them (never through the scheduler). Keys are
 * queued per peer by {@link #request} and sent by {@link #flush} (called once per batch of assigned
 * tasks), so that keys wanted from one peer are grouped into one {@code get-data} request of up to
 * {@value #MAX_KEYS} keys; at most {@code perPeer} requests to one peer are in flight, several peers
 * are served at once. The peer caps each reply in bytes ({@link Worker#MAX_REPLY_BYTES}) and names the
 * keys that did not fit "later"; they go back to the queue, so a large fetch arrives in pieces whose
 * values can be used as they come. When a peer fails or lacks a key, the next holder is tried, then the
 * {@link TaskManager} reports the key missing to the scheduler. Thread-safe; each request runs on its
 * own virtual thread.
 */
final class Fetcher {
    /** Values this worker may not build, fetched from a peer: WARN, at most 10 per 10 s. */
    private static final RateLimitedLog REFUSED = new RateLimitedLog(LoggerFactory.getLogger(Fetcher.class), 10,
            Duration.ofSeconds(10));
    static final int MAX_KEYS = 2000;

    private final ConnectionPool pool;
    private final int perPeer;
    private final TaskManager tasks;
    private final Deserializer decoder;
    private final Map<String, ArrayDeque<String>> queued = new HashMap<>();
    private final Map<String, Integer> inFlight = new HashMap<>();
    private final Map<String, List<String>> alternatives = new HashMap<>();
    final AtomicLong transfers = new AtomicLong();
    final AtomicLong keysFetched = new AtomicLong();
    final AtomicLong bytesFetched = new AtomicLong();

    Fetcher(ConnectionPool pool, int perPeer, TaskManager tasks, Deserializer decoder) {
        this.decoder = decoder;
        this.pool = pool;
        this.perPeer = perPeer;
        this.tasks = tasks;
    }

    /** Queues {@code key} for its first holder; nothing is sent before the next {@link #flush}. */
    synchronized void request(String key, List<String> holders) {
        if (holders.isEmpty()) {
            tasks.onFetchFailed(key, "");
            return;
        }
        String peer = holders.getFirst();
        alternatives.put(key, holders.subList(1, holders.size()));
        queued.computeIfAbsent(peer, p -> new ArrayDeque<>()).add(key);
    }

    /** Sends requests for the queued keys, up to the per-peer limit. */
    synchronized void flush() {
        for (String peer : new ArrayList<>(queued.keySet())) {
            pump(peer);
        }
    }

    private void pump(String peer) {
        ArrayDeque<String> q = queued.get(peer);
        while (q != null && !q.isEmpty() && inFlight.getOrDefault(peer, 0) < perPeer) {
            List<String> keys = new ArrayList<>(Math.min(q.size(), MAX_KEYS));
            while (!q.isEmpty() && keys.size() < MAX_KEYS) {
                keys.add(q.poll());
            }
            inFlight.merge(peer, 1, Integer::sum);
            Thread.ofVirtual().name("fetch from " + peer).start(() -> fetch(peer, keys));
        }
    }

    private void fetch(String peer, List<String> keys) {
        List<String> failed = new ArrayList<>();
        List<String> later = new ArrayList<>();
        DataTransferEvent event = DataTransferEvent.start();
        long received = 0;
        SerializationException refused = null;
        try {
            Message reply = pool.call(peer, Message.of(Ops.GET_DATA, Map.of("keys", keys)));
            transfers.incrementAndGet();
            if (!reply.op().equals(Ops.DATA)) {
                failed.addAll(keys);
            } else {
                List<Object> values = Codec.values(reply, decoder);
                List<Object> found = reply.getList("keys");
                List<Object> sizes = reply.getList("nbytes");
                for (int i = 0; i < found.size(); i++) {
                    long n = ((Number) sizes.get(i)).longValue();
                    keysFetched.incrementAndGet();
                    bytesFetched.addAndGet(n);
                    received += n;
                    tasks.onFetched(String.valueOf(found.get(i)), values.get(i), n);
                }
                for (Object k : reply.getList("missing")) {
                    failed.add(String.valueOf(k));
                }
                if (reply.has("later")) {
                    for (Object k : reply.getList("later")) {
                        later.add(String.valueOf(k));
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failed.addAll(keys);
        } catch (SerializationException e) {
            // The values came but cannot be built here (a class this worker does not allow): every copy would
            // fail alike, so the tasks waiting for them fail with the reason instead of asking elsewhere.
            refused = e;
            REFUSED.warn("refused the values of {} fetched from {}: {}", keys, peer, e.getMessage());
        } catch (RuntimeException e) {
            pool.drop(peer);
            failed.addAll(keys);
        }
        DataTransferEvent.finish(event, DataTransferEvent.FETCH, peer, refused != null ? 0 : keys.size() - failed.size(), received);
        List<String> retry = new ArrayList<>();
        synchronized (this) {
            inFlight.merge(peer, -1, Integer::sum);
            for (String k : failed) {
                retry.add(k);
            }
            java.util.Set<String> keep = new java.util.HashSet<>(failed);
            keep.addAll(later);
            for (String k : keys) {
                if (!keep.contains(k)) {
                    alternatives.remove(k);
                }
            }
            // The peer capped its reply by size: ask it again for the rest.
            if (!later.isEmpty()) {
                queued.computeIfAbsent(peer, p -> new ArrayDeque<>()).addAll(later);
            }
            pump(peer);
        }
        for (String k : retry) {
            List<String> rest;
            synchronized (this) {
                rest = alternatives.remove(k);
            }
            if (rest != null && !rest.isEmpty()) {
                request(k, rest);
            } else {
                tasks.onFetchFailed(k, peer);
            }
        }
        if (refused != null) {
            for (String k : keys) {
                tasks.onFetchRefused(k, refused);
            }
        }
        if (!retry.isEmpty()) {
            flush();
        }
    }
}
