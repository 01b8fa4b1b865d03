package io.dask4j.runtime.scheduler;

import io.dask4j.comm.config.UnknownSettings;
import io.dask4j.comm.Address;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommException;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.Comms;
import io.dask4j.comm.Listener;
import io.dask4j.comm.Message;
import io.dask4j.comm.ProtocolException;
import io.dask4j.runtime.protocol.BatchedSend;
import io.dask4j.runtime.protocol.Batches;
import io.dask4j.runtime.protocol.MessageSink;
import io.dask4j.runtime.loop.EventLoop;
import io.dask4j.comm.MessageHandler;
import io.dask4j.comm.Receiving;
import io.dask4j.runtime.protocol.Ops;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The scheduler server: listens on one or more addresses, runs the {@link SchedulerState} on an {@link
 * EventLoop}, and talks to every worker and client over a {@link BatchedSend}.
 *
 * <pre>{@code
 * Scheduler s = Scheduler.start(SchedulerConfig.listeningOn(Address.parse("tcp://127.0.0.1:0")));
 * Address where = s.address();     // the first listener's contact address
 * SchedulerSnapshot now = s.snapshot();
 * s.close();
 * }</pre>
 *
 * <p><b>Threads.</b> All task state belongs to the event loop. Each comm is in push mode ({@link
 * Comm#receive}): the transport's delivery thread queues the message (a batch of thousands is one event) and
 * wakes the loop's platform thread ("dask4j-scheduler") once; that thread, whose stack is sized for the state
 * machine's recursion over deep graphs, runs it, and the heartbeat checks and view publishing. The
 * replies the events produce are written by the loop's owner straight to the comms while the streams are
 * sparse ({@link BatchedSend#flush}), and coalesced by each stream's sender thread under load. A peer whose
 * messages queue past {@link SchedulerConfig#maxQueuedEvents()} is paused until the loop catches up. {@link
 * #snapshot()}, {@link #view()}, {@link #taskStream}, {@link #address()} and {@link #close()} may be called
 * from any thread: the dashboard's HTTP threads only ever read views the loop published.
 */
public final class Scheduler implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Scheduler.class);

    private final SchedulerConfig config;
    private final SchedulerState state;
    private final EventLoop loop;
    private final List<Listener> listeners = new ArrayList<>();
    private final Set<Peer> peers = ConcurrentHashMap.newKeySet();
    /** Peers written to by the events since the last flush: loop owner only. */
    private final List<Peer> dirty = new ArrayList<>();
    private final AtomicLong clientIds = new AtomicLong();
    private final AtomicLong messages = new AtomicLong();
    private final AtomicLong frameBytes = new AtomicLong();
    private final ViewPublisher views;
    private volatile boolean running = true;
    /** When the loop next checks heartbeats: loop owner only. */
    private long nextCheckNs = System.nanoTime();
    /** How often the loop's thread wakes for its periodic work (view publishing, heartbeat checks) at least. */
    private static final long VIEW_TICK_MS = 200;

    /**
     * One connected comm, a worker or a client once registered; the state machine's sink for it. Fields other
     * than comm/out: loop owner only.
     */
    private final class Peer implements MessageSink {
        final Comm comm;
        final BatchedSend out;
        WorkerState worker;
        ClientState client;
        boolean gone;
        boolean written;

        Peer(Comm comm, BatchedSend out) {
            this.comm = comm;
            this.out = out;
        }

        /** Queued for the flush at the end of the loop's turn (so a turn's messages to a peer go in one write). */
        @Override
        public void send(Message message) {
            out.offer(message);
            if (!written) {
                written = true;
                dirty.add(this);
            }
        }
    }

    private Scheduler(SchedulerConfig config) {
        this.config = config;
        this.state = new SchedulerState(config.allowedFailures(), config.unusedFunctionBytes());
        this.views = new ViewPublisher(state, () -> addresses().stream().map(Address::toString).toList());
        this.loop = new EventLoop("dask4j-scheduler", config.idle(), config.maxQueuedEvents(), this::flush, this::periodic);
    }

    /**
     * Starts listening on every address of {@code config}; returns once all listeners are bound. A scheduler that
     * listens where other users can reach it (tcp) and was given no secret, without opting out ({@link
     * CommOptions#insecureNoAuth()}), generates one for its cluster: {@link #config()}{@code .options()} then holds it,
     * for the workers and clients it is handed to (scheduler file, environment, MPI broadcast).
     */
    public static Scheduler start(SchedulerConfig config) {
        UnknownSettings.warnOnce();
        config = withClusterSecret(config);
        Scheduler s = new Scheduler(config);
        try {
            for (Address a : config.listenAddresses()) {
                s.listeners.add(Comms.listen(a, config.options(), s::serve));
            }
        } catch (RuntimeException e) {
            s.close();
            throw e;
        }
        LOG.info("scheduler listening on {}", s.addresses());
        return s;
    }

    private static SchedulerConfig withClusterSecret(SchedulerConfig config) {
        CommOptions options = config.options();
        boolean reachable = config.listenAddresses().stream().anyMatch(a -> Comms.backend(a.scheme()).reachableByOthers());
        if (!reachable || options.hasSecret() || options.insecureNoAuth()) {
            return config;
        }
        LOG.info("no secret given ({} unset): generated one for this cluster", CommOptions.SECRET_ENV);
        return config.withOptions(options.withGeneratedSecret());
    }

    /** The contact address of the first listener. */
    public Address address() {
        return listeners.getFirst().contactAddress();
    }

    public List<Address> addresses() {
        return listeners.stream().map(Listener::contactAddress).toList();
    }

    public SchedulerConfig config() {
        return config;
    }

    /** A consistent snapshot taken on the event loop; waits at most 10 s. */
    public SchedulerSnapshot snapshot() {
        CompletableFuture<SchedulerSnapshot> result = new CompletableFuture<>();
        loop.execute(() -> result.complete(state.snapshot(messages.get(), frameBytes.get())));
        try {
            return result.get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("scheduler did not answer a snapshot request", e);
        }
    }

    /**
     * The latest aggregate view for dashboards, published by the event loop every 200 ms while views are
     * being asked for. When the latest is older than that (nobody asked for a while) this asks the loop
     * for a fresh one and waits up to 2 s, then settles for the stale one. So a view is at most a few
     * hundred milliseconds old.
     */
    public ClusterView view() {
        views.touch();
        ClusterView v = views.current();
        if (v != null && System.currentTimeMillis() - v.takenAtMillis() < 250) {
            return v;
        }
        CompletableFuture<ClusterView> fresh = new CompletableFuture<>();
        loop.execute(() -> fresh.complete(views.publish(System.nanoTime())));
        try {
            return fresh.get(2, TimeUnit.SECONDS);
        } catch (Exception e) {
            if (v != null) {
                return v;
            }
            throw new IllegalStateException("scheduler did not publish a view", e);
        }
    }

    /**
     * A sample of the finished tasks (worker, key, start, stop) published after sequence number {@code
     * after}, oldest first, at most {@code max} (the loop publishes at most a few hundred per view, so a
     * page sees a representative stream, not every task). Any thread.
     */
    public List<TaskStreamEvent> taskStream(long after, int max) {
        views.touch();
        return views.window.after(after, max);
    }

    private void serve(Comm comm) {
        Message first;
        try {
            first = comm.read();
        } catch (CommException e) {
            comm.abort();
            return;
        }
        if (!first.op().equals(Ops.REGISTER_CLIENT) && !first.op().equals(Ops.REGISTER_WORKER)) {
            try {
                comm.write(Message.of(Ops.ERROR, Map.of("message", "expected register-client or register-worker, got '"
                        + first.op() + "'")));
            } catch (CommException ignored) {
                // the peer is gone already; nothing to tell it
            }
            comm.close();
            return;
        }
        Peer peer = new Peer(comm, new BatchedSend(comm, config.batchInterval().toNanos(), 20_000, e -> { }));
        peers.add(peer);
        loop.execute(() -> register(peer, first));
        Receiving[] receiving = new Receiving[1];
        receiving[0] = comm.receive(new MessageHandler() {
            @Override
            public void onMessage(Message m) {
                messages.incrementAndGet();
                if (!m.frames().isEmpty()) {
                    frameBytes.addAndGet(m.frameBytes());
                }
                // Run on the delivery thread when the loop is free (no wake-up of the loop's thread): the state
                // machine's cascades iterate (Transitions), so any thread's stack is deep enough for it.
                loop.execute(() -> handle(peer, m), receiving[0], true);
            }

            @Override
            public void onClose(CommException cause) {
                LOG.debug("comm from {} closed: {}", comm.peerAddress(), cause.toString());
                peers.remove(peer);
                loop.execute(() -> disconnected(peer));
            }
        });
    }

    /** The end of each turn of the loop: writes what the events sent, straight to the comms while sparse. */
    private void flush() {
        for (Peer p : dirty) {
            p.written = false;
            p.out.flush();
        }
        dirty.clear();
    }

    /** Heartbeat checks and view publishing, on the loop; returns when they are next due. */
    private long periodic(long now) {
        views.maybePublish(now);
        if (now - nextCheckNs >= 0) {
            nextCheckNs = now + TimeUnit.MILLISECONDS.toNanos(heartbeatMs());
            checkHeartbeats(now);
        }
        return now + TimeUnit.MILLISECONDS.toNanos(VIEW_TICK_MS);
    }

    private void register(Peer peer, Message first) {
        try {
            if (first.op().equals(Ops.REGISTER_CLIENT)) {
                String id = "client-" + clientIds.incrementAndGet();
                peer.client = state.addClient(id, peer.comm.localAddress().scheme(), peer);
            } else {
                peer.worker = state.addWorker(first, peer, System.nanoTime(), workerHeartbeatMs());
                LOG.info("worker {} registered", peer.worker.id);
            }
        } catch (ProtocolException | IllegalArgumentException | ClassCastException e) {
            peer.out.send(Message.of(Ops.ERROR, Map.of("message", String.valueOf(e.getMessage()))));
            Thread.ofVirtual().start(() -> peer.out.close(1000));   // not on the loop: close waits for the flush
            peer.gone = true;
        }
    }

    private long heartbeatMs() {
        return Math.max(50, config.heartbeatTimeout().toMillis() / 5);
    }

    /**
     * How often a new worker reports (its heartbeat carries the dashboard's memory, CPU and traffic
     * figures): as Dask, every 0.5 s in a small cluster, slower as it grows, and never less often than
     * the timeout needs.
     */
    private long workerHeartbeatMs() {
        int n = state.tx.workers.size();
        long ms = n <= 10 ? 500 : n < 50 ? 1000 : n < 200 ? 2000 : 2000 + 10L * n;
        return Math.min(ms, heartbeatMs());
    }

    private void handle(Peer peer, Message batch) {
        if (peer.gone) {
            return;
        }
        List<Message> items;
        try {
            items = Batches.unpack(batch);
        } catch (ProtocolException e) {
            replyError(peer, batch.op(), e);
            return;
        }
        long now = System.nanoTime();
        for (Message m : items) {
            try {
                if (peer.worker != null) {
                    state.onWorkerMessage(peer.worker, m, now);
                } else if (peer.client != null) {
                    if (m.op().equals(Ops.CLOSE_CLIENT)) {
                        disconnected(peer);
                        return;
                    }
                    state.onClientMessage(peer.client, m);
                }
            } catch (ProtocolException | IllegalArgumentException | ClassCastException | NullPointerException e) {
                replyError(peer, m.op(), e);
            }
        }
        state.assign();
    }

    private void replyError(Peer peer, String op, RuntimeException e) {
        LOG.warn("bad message '{}' from {}: {}", op, peer.comm.peerAddress(), e.getMessage());
        peer.out.send(Message.of(Ops.ERROR, Map.of("op", op, "message", String.valueOf(e.getMessage()))));
    }

    private void disconnected(Peer peer) {
        if (peer.gone) {
            return;
        }
        peer.gone = true;
        if (peer.worker != null) {
            LOG.info("worker {} left", peer.worker.id);
            state.removeWorker(peer.worker);
        }
        if (peer.client != null) {
            state.removeClient(peer.client);
        }
        peer.out.abort();
    }

    private void checkHeartbeats(long now) {
        for (WorkerState w : state.silentWorkers(now, config.heartbeatTimeout().toNanos())) {
            LOG.warn("worker {} missed its heartbeats; removing it", w.id);
            state.removeWorker(w);
            for (Peer p : peers) {
                if (p.worker == w) {
                    p.gone = true;
                    p.out.abort();
                }
            }
        }
        state.assign();
    }

    /** Stops listening, tells workers to close, flushes the streams and stops the event loop. */
    @Override
    public void close() {
        if (!running) {
            return;
        }
        listeners.forEach(Listener::stop);
        CompletableFuture<Void> told = new CompletableFuture<>();
        loop.execute(() -> {
            for (Peer p : peers) {
                if (p.worker != null) {
                    p.out.send(Message.of(Ops.CLOSE));
                }
            }
            told.complete(null);
        });
        try {
            told.get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            LOG.debug("scheduler loop did not confirm close", e);
        }
        for (Peer p : peers) {
            p.out.close(1000);
        }
        running = false;
        loop.close();
    }
}
