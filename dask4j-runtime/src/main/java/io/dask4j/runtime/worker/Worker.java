package io.dask4j.runtime.worker;

import io.dask4j.comm.serialize.ClassNotAllowedException;
import io.dask4j.comm.serialize.SerializationException;
import io.dask4j.comm.serialize.Deserializer;
import io.dask4j.comm.Address;
import io.dask4j.comm.RateLimitedLog;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommException;
import io.dask4j.comm.Comms;
import io.dask4j.comm.Listener;
import io.dask4j.comm.Message;
import io.dask4j.comm.MessageHandler;
import io.dask4j.comm.Receiving;
import io.dask4j.runtime.loop.EventLoop;
import io.dask4j.comm.ProtocolException;
import io.dask4j.runtime.protocol.BatchedSend;
import io.dask4j.runtime.protocol.Batches;
import io.dask4j.runtime.protocol.Codec;
import io.dask4j.runtime.protocol.ConnectionPool;
import io.dask4j.runtime.protocol.Ops;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * A worker: runs tasks on N threads, keeps their results in a {@link DataStore} (spilling past its
 * memory limit), serves them to peers and clients, and fetches its inputs from peers directly.
 *
 * <pre>{@code
 * Worker w = Worker.start(WorkerConfig.connectingTo(schedulerAddress).withThreads(4));
 * w.closed().join();   // until the scheduler goes away or close() is called
 * }</pre>
 *
 * <p>A worker never reconnects: when its scheduler comm closes it shuts down (so a stale worker never
 * lingers). Threads: the control plane (the scheduler's stream, heartbeats) runs on an {@link EventLoop}: the
 * transport's delivery thread handles a message itself when the loop is free and the message is small, else
 * the loop's thread does. N platform threads run tasks; a finished task's report is written by its task thread
 * when no other task is ready (one hand-off to the scheduler), else coalesced by the stream's sender. Peers'
 * requests are answered on the delivery thread when the answer is small, else on a virtual thread. Public
 * methods may be called from any thread.
 */
public final class Worker implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Worker.class);
    /** Values of classes this worker may not build, put or fetched by peers: WARN, at most 10 per 10 s. */
    private static final RateLimitedLog REFUSED = new RateLimitedLog(LOG, 10, Duration.ofSeconds(10));

    /**
     * A get-data reply carries at most this many bytes of values (a single larger value goes alone); the
     * keys that did not fit are marked "later" and the peer asks again. The peer can use each reply's
     * values as soon as it arrives, so smaller replies let its tasks start while the rest is in flight.
     */
    static final long MAX_REPLY_BYTES = 16L << 20;
    /** A peer's request whose answer holds at most this many bytes is answered on the delivery thread. */
    static final long INLINE_REPLY_BYTES = 64L << 10;
    /** Requests a peer's connection may have read but unanswered before it is dropped (peers ask one at a time). */
    static final int MAX_UNANSWERED_REQUESTS = 16;
    /** A scheduler message with at most this many rows is handled on the delivery thread when the loop is free. */
    static final int INLINE_ROWS = 64;
    /** Scheduler messages queued for the control loop before the scheduler's stream is paused. */
    static final int MAX_QUEUED_EVENTS = 1024;

    private final WorkerConfig config;
    private final Path directory;
    private final DataStore store;
    private final Deserializer decoder;
    private final List<Listener> listeners = new ArrayList<>();
    private final ConnectionPool pool;
    private final CompletableFuture<Void> closed = new CompletableFuture<>();
    /**
     * Completed once the worker can answer peers (its task manager exists), or when it closes. Peers may ask
     * earlier: a client learns of the worker from the scheduler as soon as it registers, before this worker has
     * finished starting, and its requests wait for this.
     */
    private final CompletableFuture<Void> ready = new CompletableFuture<>();
    private final AtomicLong transfersOut = new AtomicLong();
    private final AtomicLong keysServed = new AtomicLong();
    private final List<Thread> threads = new ArrayList<>();
    private Comm schedulerComm;
    private BatchedSend toScheduler;
    private TaskManager tasks;
    private Fetcher fetcher;
    private EventLoop control;
    private long heartbeatMs;
    private String id;

    private Worker(WorkerConfig config) throws IOException {
        this.config = config;
        Path base = config.localDirectory() != null ? config.localDirectory() : Path.of(System.getProperty("java.io.tmpdir"));
        Files.createDirectories(base);
        this.directory = Files.createTempDirectory(base, "dask4j-worker-");
        // stop() deletes it; a worker process that ends without stop() (its cluster terminated it) would
        // otherwise leave one empty directory per run in /tmp.
        directory.toFile().deleteOnExit();
        this.decoder = new Deserializer(config.allowedClasses());
        this.store = new DataStore(config.memoryLimit(), config.spillFraction(), directory, decoder);
        this.pool = new ConnectionPool(config.options(), config.transfersPerPeer());
    }

    /** Listens, registers with the scheduler and starts the task threads; returns once registered. */
    public static Worker start(WorkerConfig config) {
        Worker w;
        try {
            w = new Worker(config);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot create the worker's local directory", e);
        }
        try {
            w.startUp();
        } catch (RuntimeException e) {
            w.close();
            throw e;
        }
        return w;
    }

    private void startUp() {
        // Off the start-up path: registration goes on meanwhile, and the first task finds the decoder warm.
        Thread warmUp = new Thread(this::warmUpDecoder, "dask4j-warm-up");
        warmUp.setDaemon(true);
        warmUp.start();
        List<Address> listen = config.listenAddresses().isEmpty() ? List.of(defaultListenAddress()) : config.listenAddresses();
        for (Address a : listen) {
            listeners.add(Comms.listen(a, config.options(), this::serve));
        }
        List<Object> addresses = new ArrayList<>();
        for (Listener l : listeners) {
            addresses.add(l.contactAddress().toString());
        }
        id = (String) addresses.getFirst();
        LOG.info("worker {} listening on {}", id, addresses);
        config.onListening().accept(addresses());
        schedulerComm = Comms.connect(config.scheduler(), config.options());
        schedulerComm.write(Message.of(Ops.REGISTER_WORKER, Map.of("name", config.name().isEmpty() ? id : config.name(),
                "nthreads", config.nthreads(), "memory_limit", config.memoryLimit(), "addresses", addresses,
                "pid", ProcessHandle.current().pid())));
        Message reply = schedulerComm.read();
        if (!reply.op().equals(Ops.REGISTERED)) {
            throw new ProtocolException("scheduler refused the worker: " + reply.fields().getOrDefault("message", reply.op()));
        }
        heartbeatMs = reply.has("heartbeat_ms") ? reply.getLong("heartbeat_ms") : 1000;
        toScheduler = BatchedSend.of(schedulerComm, e -> closeInBackground());
        tasks = new TaskManager(store, toScheduler, id, decoder, config.idle());
        store.onLost(key -> toScheduler.send(Message.of(Ops.DATA_LOST, Map.of("key", key))));
        toScheduler.addSource(tasks.finishedBatch(toScheduler::poke, toScheduler::flush));
        fetcher = new Fetcher(pool, config.transfersPerPeer(), tasks, decoder);
        tasks.setFetcher(fetcher);
        for (int i = 0; i < config.nthreads(); i++) {
            Thread t = new Thread(tasks::runTasks, "dask4j-task-" + i);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        control = new EventLoop("dask4j-worker", config.idle(), MAX_QUEUED_EVENTS, () -> { }, this::heartbeat);
        Receiving[] receiving = new Receiving[1];
        receiving[0] = schedulerComm.receive(new MessageHandler() {
            @Override
            public void onMessage(Message batch) {
                control.execute(() -> fromScheduler(batch), receiving[0], rows(batch) <= INLINE_ROWS);
            }

            @Override
            public void onClose(CommException cause) {
                if (!closed.isDone()) {
                    LOG.info("worker {} lost its scheduler ({}); shutting down", id, cause.getMessage());
                }
                closeInBackground();
            }
        });
        Address dialed = config.options().routes().route(config.scheduler());
        ready.complete(null);
        LOG.info("worker {} registered with {}{}", id, config.scheduler(), dialed.equals(config.scheduler()) ? "" : " over " + dialed);
    }

    private void warmUpDecoder() {
        try {
            decoder.warmUp();
        } catch (RuntimeException e) {
            // Only a cost saving: the first task decodes as it would have anyway, and reports what fails there.
            LOG.debug("decoder warm-up failed", e);
        }
    }

    /**
     * Rows of a scheduler message (its keys; a batch's items' keys summed), to keep big batches off the delivery
     * thread. A round trip's batch (a task to compute and the previous task's key to free) is two rows.
     */
    private static int rows(Message m) {
        if (m.op().equals(Batches.OP)) {
            if (!(m.fields().get("msgs") instanceof List<?> items)) {
                return 0;   // malformed: the loop reports it
            }
            int rows = 0;
            for (Object item : items) {
                rows += item instanceof Map<?, ?> fields ? keys(fields) : 1;
            }
            return rows;
        }
        return keys(m.fields());
    }

    private static int keys(Map<?, ?> fields) {
        return fields.get("keys") instanceof List<?> keys ? keys.size() : 1;
    }

    private Address defaultListenAddress() {
        Address s = config.scheduler();
        return switch (s.scheme()) {
            case "tcp" -> Address.tcp("127.0.0.1", 0);
            case "tls" -> Address.tls("127.0.0.1", 0);
            case "inproc" -> Address.inproc("worker-" + UUID.randomUUID());
            default -> throw new IllegalArgumentException("give a listen address for a worker of a " + s.scheme()
                    + ":// scheduler (for example mpi://<rank>)");
        };
    }

    /** This worker's id: its first contact address. */
    public String id() {
        return id;
    }

    public List<Address> addresses() {
        return listeners.stream().map(Listener::contactAddress).toList();
    }

    /** Completes when the worker has shut down. */
    public CompletableFuture<Void> closed() {
        return closed;
    }

    /** Keys this worker holds for the scheduler (computed here or scattered here). */
    public Set<String> keys() {
        return tasks == null ? Set.of() : tasks.ownedKeys();
    }

    public boolean holds(String key) {
        return store.contains(key);
    }

    public DataStore store() {
        return store;
    }

    public WorkerStats stats() {
        return new WorkerStats(tasks.tasksRun.get(), tasks.tasksFailed.get(), fetcher.transfers.get(),
                fetcher.keysFetched.get(), fetcher.bytesFetched.get(), transfersOut.get(), keysServed.get(),
                store.memoryBytes(), store.spilledBytes(), store.spillCount(), store.unspillCount(),
                tasks.functionsHeld());
    }

    /** One message of the scheduler's stream, on the control loop. */
    private void fromScheduler(Message batch) {
        if (closed.isDone()) {
            return;
        }
        for (Message m : Batches.unpack(batch)) {
            switch (m.op()) {
                case Ops.COMPUTE_TASKS -> tasks.onComputeTasks(m);
                case Ops.FREE_KEYS -> tasks.onFreeKeys(m.getList("keys"));
                case Ops.FREE_FUNCTIONS -> tasks.onFreeFunctions(m.getList("ids"));
                case Ops.CLOSE -> {
                    closeInBackground();
                    return;
                }
                case Ops.ERROR -> LOG.warn("scheduler reports an error: {}", m.fields());
                default -> LOG.warn("worker {} ignores unknown op '{}' from the scheduler", id, m.op());
            }
        }
    }

    /** Sends a heartbeat (on the control loop); returns when the next one is due. */
    private long heartbeat(long now) {
        if (!closed.isDone()) {
            toScheduler.send(Message.of(Ops.HEARTBEAT,
                    io.dask4j.runtime.protocol.WorkerMetrics.collect(store.memoryBytes(), store.spilledBytes()).toFields()));
        }
        return now + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(heartbeatMs);
    }

    /** {@link #close} on a thread of its own: it waits for the stream's flush, which a delivery thread must not. */
    private void closeInBackground() {
        if (!closed.isDone()) {
            Thread.ofVirtual().name("worker-close").start(this::close);
        }
    }

    /**
     * A peer's connection, in push mode: a request whose answer is small is answered on the delivery thread
     * (no hand-off; the peer is waiting for it); a bigger one on a virtual thread. Answers keep the order of the
     * requests: while one is being answered on a virtual thread, later ones queue behind it. Workers and clients
     * ask one request at a time per connection ({@code ConnectionPool}); a peer with more than {@value
     * #MAX_UNANSWERED_REQUESTS} unanswered (one that does not read its answers) loses the connection, so the queue,
     * and the frames of the requests in it, stay bounded.
     */
    private void serve(Comm comm) {
        comm.receive(new MessageHandler() {
            /** The last answer handed to a virtual thread (at first, the worker's start): delivery thread only. */
            private CompletableFuture<Void> tail = ready;
            /** Requests read and not yet answered. */
            private final AtomicInteger unanswered = new AtomicInteger();

            @Override
            public void onMessage(Message m) {
                if (closed.isDone()) {
                    comm.abort();
                    return;
                }
                if (unanswered.incrementAndGet() > MAX_UNANSWERED_REQUESTS) {
                    REFUSED.warn("worker {} dropped the connection from {}: more than {} requests unanswered (a peer "
                            + "asks one at a time and reads each answer)", id, comm.peerAddress(), MAX_UNANSWERED_REQUESTS);
                    m.release();
                    comm.abort();
                    return;
                }
                if (tail.isDone() && m.op().equals(Ops.GET_DATA) && replyBytes(m) <= INLINE_REPLY_BYTES) {
                    answerCounted(m);
                    return;
                }
                tail = tail.thenRunAsync(() -> answerCounted(m), Thread.ofVirtual().name("worker-serve")::start);
            }

            private void answerCounted(Message m) {
                try {
                    answer(comm, m);
                } catch (Throwable t) {
                    // Later requests queue behind this answer and would never run: the peer hears the close
                    // instead of waiting for replies that cannot come.
                    comm.abort();
                    throw t;
                } finally {
                    unanswered.decrementAndGet();
                }
            }

            @Override
            public void onClose(CommException cause) {
                LOG.debug("peer {} closed: {}", comm.peerAddress(), cause.getMessage());
                comm.abort();
            }
        });
    }

    /** The bytes a get-data answer would hold (what the store knows of the keys' sizes). */
    private long replyBytes(Message m) {
        if (!(m.fields().get("keys") instanceof List<?> keys)) {
            return 0;   // answered at once, with the error that getData finds
        }
        long bytes = 0;
        for (Object key : keys) {
            bytes += Math.max(0, store.nbytes(String.valueOf(key)));
        }
        return bytes;
    }

    private void answer(Comm comm, Message m) {
        Message reply;
        try {
            reply = switch (m.op()) {
                case Ops.GET_DATA -> getData(m);
                case Ops.PUT_DATA -> putData(m);
                default -> Message.of(Ops.ERROR, Map.of("message", "unknown op '" + m.op() + "'"));
            };
        } catch (ProtocolException | IllegalArgumentException | ClassCastException | SerializationException e) {
            // A value this worker may not build (ClassNotAllowedException) is the sender's error to hear about,
            // not a reason to drop the connection; the reply names the exception's type (and the refused class).
            reply = errorReply(e);
            if (e instanceof ClassNotAllowedException refused) {
                REFUSED.warn("worker {} refused {} from {}: {}", id, m.op(), comm.peerAddress(), refused.getMessage());
            }
        } catch (RuntimeException e) {
            // This worker's own fault, not the request's: the peer still gets an answer it can raise, never silence.
            LOG.warn("worker {} failed to answer {} from {}", id, m.op(), comm.peerAddress(), e);
            reply = errorReply(e);
        }
        try {
            comm.write(reply);
        } catch (CommException e) {
            LOG.debug("peer {} closed: {}", comm.peerAddress(), e.getMessage());
            comm.abort();
        }
    }

    private Message getData(Message m) {
        transfersOut.incrementAndGet();
        List<Object> found = new ArrayList<>();
        List<Object> missing = new ArrayList<>();
        List<Object> sizes = new ArrayList<>();
        List<Object> values = new ArrayList<>();
        List<Object> later = new ArrayList<>();
        long bytes = 0;
        for (Object o : m.getList("keys")) {
            String key = String.valueOf(o);
            long n = store.nbytes(key);
            if (!found.isEmpty() && bytes + n > MAX_REPLY_BYTES) {
                later.add(key);
                continue;
            }
            Object value;
            try {
                value = store.get(key);
            } catch (SpilledValueLostException e) {
                value = null;   // the store told the scheduler; the asker hears it is missing here
            }
            if (value == null) {
                missing.add(key);
                continue;
            }
            found.add(key);
            bytes += n;
            sizes.add(n);
            values.add(value);
        }
        keysServed.addAndGet(found.size());
        return Codec.dataMessage(Ops.DATA, Map.of("keys", found, "missing", missing, "later", later, "nbytes", sizes), values);
    }

    private Message putData(Message m) {
        List<Object> keys = m.getList("keys");
        List<Object> values = Codec.values(m, decoder);
        if (keys.size() != values.size()) {
            throw new ProtocolException("put-data: " + keys.size() + " keys but " + values.size() + " values");
        }
        List<Object> sizes = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            long n = Sizes.estimate(values.get(i));
            tasks.putOwned(String.valueOf(keys.get(i)), values.get(i), n);
            sizes.add(n);
        }
        return Message.of(Ops.OK, Map.of("nbytes", sizes));
    }

    /**
     * The error answer to a request this worker refused: {@code message}, {@code type} (the exception's class name)
     * and, for a value of a class it may not build, {@code class} (that class's name).
     */
    private static Message errorReply(RuntimeException e) {
        Map<String, Object> fields = new HashMap<>();
        fields.put("message", String.valueOf(e.getMessage()));
        fields.put("type", e.getClass().getName());
        if (e instanceof ClassNotAllowedException refused) {
            fields.put("class", refused.className());
        }
        return Message.of(Ops.ERROR, fields);
    }

    /** Stops everything and deletes the local directory. Idempotent, any thread. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed.isDone()) {
                return;
            }
            closed.complete(null);
        }
        // Requests waiting for a start that will not come are answered (with errors) rather than left waiting.
        ready.complete(null);
        listeners.forEach(Listener::stop);
        if (control != null) {
            control.close();
        }
        if (toScheduler != null) {
            toScheduler.close(500);
        } else if (schedulerComm != null) {
            schedulerComm.abort();
        }
        for (Thread t : threads) {
            if (t != Thread.currentThread()) {
                t.interrupt();
            }
        }
        pool.close();
        store.clear();
        try (Stream<Path> files = Files.walk(directory)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            LOG.debug("could not remove {}", directory, e);
        }
        LOG.info("worker {} closed", id);
    }
}
