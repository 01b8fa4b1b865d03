package io.dask4j.runtime.protocol;

import io.dask4j.comm.Address;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.Comms;
import io.dask4j.comm.Message;

import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;

/**
 * Request/reply comms to peers (workers), reused between calls and capped per peer: at most
 * {@code perPeer} calls to one address run at once, the rest wait, as Dask caps concurrent transfers
 * from one worker. Thread-safe; calls block the caller (virtual threads welcome).
 */
public final class ConnectionPool implements AutoCloseable {
    private final CommOptions options;
    private final int perPeer;
    private final Map<String, Peer> peers = new ConcurrentHashMap<>();
    private volatile boolean closed;

    private static final class Peer {
        final Semaphore permits;
        final ArrayDeque<Comm> idle = new ArrayDeque<>();

        Peer(int n) {
            permits = new Semaphore(n);
        }
    }

    /** Peers are workers that are up or dead; a dead one should not hold a fetch for the full connect timeout. */
    static final java.time.Duration MAX_CONNECT = java.time.Duration.ofSeconds(5);

    public ConnectionPool(CommOptions options, int perPeer) {
        this.options = options.connectTimeout().compareTo(MAX_CONNECT) > 0 ? options.withConnectTimeout(MAX_CONNECT) : options;
        this.perPeer = perPeer;
    }

    /** Sends {@code request} to {@code address} and returns the reply; a failed comm is dropped, never reused. */
    public Message call(String address, Message request) throws InterruptedException {
        Peer peer = peers.computeIfAbsent(address, a -> new Peer(perPeer));
        peer.permits.acquire();
        Comm comm = null;
        try {
            synchronized (peer) {
                comm = peer.idle.poll();
            }
            if (comm == null || comm.isClosed()) {
                comm = Comms.connect(Address.parse(address), options);
            }
            comm.write(request);
            Message reply = comm.read();
            if (!closed) {
                synchronized (peer) {
                    peer.idle.push(comm);
                }
                comm = null;
            }
            return reply;
        } finally {
            if (comm != null) {
                comm.abort();
            }
            peer.permits.release();
        }
    }

    /** Forgets pooled comms to {@code address} (after it died). */
    public void drop(String address) {
        Peer peer = peers.remove(address);
        if (peer != null) {
            synchronized (peer) {
                peer.idle.forEach(Comm::abort);
                peer.idle.clear();
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        for (String a : peers.keySet()) {
            Peer peer = peers.get(a);
            if (peer != null) {
                synchronized (peer) {
                    peer.idle.forEach(Comm::close);
                    peer.idle.clear();
                }
            }
        }
        peers.clear();
    }
}
