package io.dask4j.runtime.worker;

import io.dask4j.comm.serialize.Deserializer;
import io.dask4j.comm.Address;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommException;
import io.dask4j.comm.Comms;
import io.dask4j.comm.Listener;
import io.dask4j.comm.Message;
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
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
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
 * lingers). Threads: one virtual thread reads the scheduler stream, one sends heartbeats, N platform
 * threads run tasks, and each peer connection is served on its own virtual thread. Public methods may
 * be called from any thread.
 */
public final class Worker implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Worker.class);

    /**
     * A get-data reply carries at most this many bytes of values (a single larger value goes alone); the
     * keys that did not fit are marked "later" and the peer asks again. The peer can use each reply's
     * values as soon as it arrives, so smaller replies let its tasks start while the rest is in flight.
     */
    static final long MAX_REPLY_BYTES = 16L << 20;

    private final WorkerConfig config;
    private final Path directory;
    private final DataStore store;
    private final Deserializer decoder;
    private final List<Listener> listeners = new ArrayList<>();
    private final ConnectionPool pool;
    private final CompletableFuture<Void> closed = new CompletableFuture<>();
    private final AtomicLong transfersOut = new AtomicLong();
    private final AtomicLong keysServed = new AtomicLong();
    private final List<Thread> threads = new ArrayList<>();
    private Comm schedulerComm;
    private BatchedSend toScheduler;
    private TaskManager tasks;
    private Fetcher fetcher;
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
        List<Address> listen = config.listenAddresses().isEmpty() ? List.of(defaultListenAddress()) : config.listenAddresses();
        for (Address a : listen) {
            listeners.add(Comms.listen(a, config.options(), this::serve));
        }
        List<Object> addresses = new ArrayList<>();
        for (Listener l : listeners) {
            addresses.add(l.contactAddress().toString());
        }
        id = (String) addresses.getFirst();
        schedulerComm = Comms.connect(config.scheduler(), config.options());
        schedulerComm.write(Message.of(Ops.REGISTER_WORKER, Map.of("name", config.name().isEmpty() ? id : config.name(),
                "nthreads", config.nthreads(), "memory_limit", config.memoryLimit(), "addresses", addresses,
                "pid", ProcessHandle.current().pid())));
        Message reply = schedulerComm.read();
        if (!reply.op().equals(Ops.REGISTERED)) {
            throw new ProtocolException("scheduler refused the worker: " + reply.fields().getOrDefault("message", reply.op()));
        }
        long heartbeatMs = reply.has("heartbeat_ms") ? reply.getLong("heartbeat_ms") : 1000;
        toScheduler = BatchedSend.of(schedulerComm, e -> close());
        tasks = new TaskManager(store, toScheduler, id, decoder);
        store.onLost(key -> toScheduler.send(Message.of(Ops.DATA_LOST, Map.of("key", key))));
        toScheduler.addSource(tasks.finishedBatch(toScheduler::poke));
        fetcher = new Fetcher(pool, config.transfersPerPeer(), tasks, decoder);
        tasks.setFetcher(fetcher);
        for (int i = 0; i < config.nthreads(); i++) {
            Thread t = new Thread(tasks::runTasks, "dask4j-task-" + i);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        threads.add(Thread.ofVirtual().name("worker-stream").start(this::readScheduler));
        threads.add(Thread.ofVirtual().name("worker-heartbeat").start(() -> heartbeat(heartbeatMs)));
        LOG.info("worker {} registered with {}", id, config.scheduler());
    }

    private Address defaultListenAddress() {
        Address s = config.scheduler();
        return switch (s.scheme()) {
            case "tcp" -> Address.tcp("127.0.0.1", 0);
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

    private void readScheduler() {
        try {
            while (!closed.isDone()) {
                for (Message m : Batches.unpack(schedulerComm.read())) {
                    switch (m.op()) {
                        case Ops.COMPUTE_TASKS -> tasks.onComputeTasks(m);
                        case Ops.FREE_KEYS -> tasks.onFreeKeys(m.getList("keys"));
                        case Ops.FREE_FUNCTIONS -> tasks.onFreeFunctions(m.getList("ids"));
                        case Ops.CLOSE -> {
                            close();
                            return;
                        }
                        case Ops.ERROR -> LOG.warn("scheduler reports an error: {}", m.fields());
                        default -> LOG.warn("worker {} ignores unknown op '{}' from the scheduler", id, m.op());
                    }
                }
            }
        } catch (CommException e) {
            LOG.info("worker {} lost its scheduler ({}); shutting down", id, e.getMessage());
        } finally {
            close();
        }
    }

    private void heartbeat(long intervalMs) {
        try {
            while (!closed.isDone()) {
                Thread.sleep(intervalMs);
                toScheduler.send(Message.of(Ops.HEARTBEAT,
                        io.dask4j.runtime.protocol.WorkerMetrics.collect(store.memoryBytes(), store.spilledBytes()).toFields()));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void serve(Comm comm) {
        try {
            while (!closed.isDone()) {
                Message m = comm.read();
                Message reply;
                try {
                    reply = switch (m.op()) {
                        case Ops.GET_DATA -> getData(m);
                        case Ops.PUT_DATA -> putData(m);
                        default -> Message.of(Ops.ERROR, Map.of("message", "unknown op '" + m.op() + "'"));
                    };
                } catch (ProtocolException | IllegalArgumentException | ClassCastException e) {
                    reply = Message.of(Ops.ERROR, Map.of("message", String.valueOf(e.getMessage())));
                }
                comm.write(reply);
            }
        } catch (CommException e) {
            LOG.debug("peer {} closed: {}", comm.peerAddress(), e.getMessage());
        } finally {
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

    /** Stops everything and deletes the local directory. Idempotent, any thread. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed.isDone()) {
                return;
            }
            closed.complete(null);
        }
        listeners.forEach(Listener::stop);
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
