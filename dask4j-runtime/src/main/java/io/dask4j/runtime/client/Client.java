package io.dask4j.runtime.client;

import io.dask4j.runtime.task.Arguments;
import io.dask4j.runtime.task.TaskFunction;
import io.dask4j.comm.Address;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommClosedException;
import io.dask4j.comm.CommException;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.Comms;
import io.dask4j.comm.Message;
import io.dask4j.comm.MessageHandler;
import io.dask4j.runtime.loop.IdleOptions;
import io.dask4j.comm.ProtocolException;
import io.dask4j.comm.serialize.ClassAllowList;
import io.dask4j.comm.serialize.Deserializer;
import io.dask4j.runtime.protocol.SchedulerFile;
import io.dask4j.runtime.protocol.BatchedSend;
import io.dask4j.runtime.protocol.Batches;
import io.dask4j.runtime.protocol.ConnectionPool;
import io.dask4j.runtime.protocol.Ops;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The user's entry point to a dask4j cluster, in the style of Dask's futures API.
 *
 * <pre>{@code
 * try (Client client = LocalCluster.startClient(2, 1)) {                      // or Client.connect("tcp://host:8786")
 *     DaskFuture<Integer> a = client.submit((Integer x) -> x + 1, 41);
 *     DaskFuture<Integer> b = client.submit((Integer x, Integer y) -> x * y, a, 2);   // futures as arguments
 *     System.out.println(b.result());                                               // 84
 *     List<DaskFuture<Integer>> squares = client.map(x -> x * x, List.of(1, 2, 3));
 *     System.out.println(client.gather(squares));                                   // [1, 4, 9]
 * }
 * }</pre>
 *
 * <p>Arguments may be plain values, {@link DaskFuture}s, or lists/maps/arrays containing futures: the
 * worker running the task receives the values, moved from worker to worker, never through this client.
 * Lambdas with one or two arguments are typed by their parameters ({@code (Integer x) -> x + 1}) when an
 * argument is a future.
 *
 * <p><b>Losing the scheduler.</b> If the connection to the scheduler breaks, futures not yet done fail
 * ({@link RemoteTaskException} naming the lost connection), and every later call that needs the scheduler
 * (submit, map, scatter, compute, and a gather whose worker no longer answers) throws
 * {@link CommClosedException} at once. Make a new client to go on.
 *
 * <p>Thread-safe: any thread may submit, gather and release. The scheduler's stream is in push mode: its
 * messages are handled on the transport's delivery thread; a submit is written on the calling thread while the
 * stream is sparse; results are fetched from workers on the calling thread (or virtual threads for several
 * workers), which stays awake briefly before it parks while waiting ({@link IdleOptions#defaults()}).
 */
public final class Client implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Client.class);

    private final Comm comm;
    private final BatchedSend out;
    private final String id;
    private final String token = UUID.randomUUID().toString().substring(0, 8);
    private final AtomicLong counter = new AtomicLong();
    private final AtomicLong requests = new AtomicLong();
    private final KeyTable keys = new KeyTable();
    private final Map<Long, CompletableFuture<Message>> pending = new ConcurrentHashMap<>();
    private final GraphEncoder.FunctionTable functions = new GraphEncoder.FunctionTable();
    private final ConnectionPool pool;
    private final ExecutorService background = Executors.newVirtualThreadPerTaskExecutor();
    private final Gatherer gatherer;
    /** How long a thread waiting for a result stays awake before it parks (the answer is often microseconds away). */
    private final IdleOptions idle = IdleOptions.defaults();
    private volatile AutoCloseable owned;
    /** Set by {@link #close} before its goodbye to the scheduler: from then on a closed connection is expected. */
    private volatile boolean closed;
    /** Set once the connection to the scheduler is gone while the client is open; later calls fail with it. */
    private final AtomicReference<CommClosedException> lost = new AtomicReference<>();
    private volatile Message lastError;

    private Client(Comm comm, CommOptions options, ClassAllowList allowedClasses) {
        this.comm = comm;
        comm.write(Message.of(Ops.REGISTER_CLIENT, Map.of("pid", ProcessHandle.current().pid())));
        Message reply = comm.read();
        if (!reply.op().equals(Ops.REGISTERED)) {
            comm.abort();
            throw refused(comm.peerAddress(), reply);
        }
        this.id = reply.getString("id");
        this.out = BatchedSend.of(comm, e -> markLost("sending failed: " + e.getMessage(), e));
        this.out.addSource(keys.releases);
        this.pool = new ConnectionPool(options, 4);
        this.gatherer = new Gatherer(pool, background, this::checkConnected, new Deserializer(allowedClasses), idle);
        comm.receive(new StreamHandler());
    }

    /**
     * Why {@code peer} did not register this client. A worker, whose address is easily taken for its
     * scheduler's (both are printed and listen on tcp), answers that it does not know the op: say so.
     */
    private static ProtocolException refused(Address peer, Message reply) {
        Object message = reply.fields().get("message");
        if (reply.op().equals(Ops.ERROR) && message != null && message.toString().startsWith("unknown op")) {
            return new ProtocolException(peer + ": not a scheduler (the peer answered: " + message + "); is this a worker's address?");
        }
        return new ProtocolException("scheduler " + peer + " refused the client: " + reply.fields());
    }

    /**
     * Connects to a scheduler at {@code address} ({@code tcp://host:port}, {@code inproc://name}, ...), with the
     * secret from {@code DASK4J_SECRET} if set (a scheduler that generated its secret writes it to its
     * scheduler file: see {@link #connect(Path)}).
     */
    public static Client connect(String address) {
        return connect(Address.parse(address), CommOptions.defaults());
    }

    /**
     * Connects to the scheduler a scheduler file names, with the cluster's secret the file holds (or else the one in
     * {@code DASK4J_SECRET}); waits up to 30 s for the file to appear.
     */
    public static Client connect(Path schedulerFile) {
        SchedulerFile.Contents contents = SchedulerFile.readContents(schedulerFile, Duration.ofSeconds(30), line -> { });
        return connect(contents.addresses().getFirst(), contents.options(CommOptions.defaults()));
    }

    /** Connects with {@code options}, building results only of the classes {@link ClassAllowList#defaults()} allows. */
    public static Client connect(Address address, CommOptions options) {
        return connect(address, options, ClassAllowList.defaults());
    }

    /**
     * Connects with {@code options}; results and other values from workers are built only of the classes
     * {@code allowedClasses} allows (give the workers the same list).
     */
    public static Client connect(Address address, CommOptions options, ClassAllowList allowedClasses) {
        CommOptions named = options.withIdentity("client");
        return new Client(Comms.connect(address, named), named, allowedClasses);
    }

    /**
     * Makes {@link #close()} close {@code resource} too, after this client's goodbye: for a cluster that exists
     * only for this client ({@code LocalCluster.startClient}). Call once, before the client is shared.
     *
     * @return this client
     */
    public Client closing(AutoCloseable resource) {
        owned = java.util.Objects.requireNonNull(resource, "resource");
        return this;
    }

    /** The id the scheduler gave this client. */
    public String id() {
        return id;
    }

    // ---- submitting ---------------------------------------------------------------------------

    public <R> DaskFuture<R> submit(SerializableSupplier<R> fn) {
        return submitOne("supplier", fn, new Adapters.OfSupplier<>(fn), new Object[0]);
    }

    /** {@code arg} may be a value, a {@link DaskFuture}, or a collection holding futures. */
    @SuppressWarnings("overloads")
    public <T, R> DaskFuture<R> submit(SerializableFunction<T, R> fn, Object arg) {
        return submitOne("function", fn, new Adapters.OfFunction<>(fn), new Object[]{arg});
    }

    public <T, U, R> DaskFuture<R> submit(SerializableBiFunction<T, U, R> fn, Object a, Object b) {
        return submitOne("bifunction", fn, new Adapters.OfBiFunction<>(fn), new Object[]{a, b});
    }

    /** The general form: any number of arguments. */
    @SuppressWarnings("overloads")
    public <R> DaskFuture<R> submit(TaskFunction<R> fn, Object... args) {
        return submitOne("task", fn, fn, args.clone());
    }

    /** Submits one task; {@code identity} is the object whose serialized bytes {@code fn} caches (see Adapters). */
    <R> DaskFuture<R> submitOne(String prefix, Object identity, TaskFunction<R> fn, Object[] args) {
        String key = newKey(prefix);
        return functions.whileSending(() -> {
            GraphEncoder enc = new GraphEncoder(functions, Set.of(key), false);
            enc.add(key, identity, fn, args);
            DaskFuture<R> f = futureFor(key);
            enc.sendAll(this::queue);
            out.flush();
            return f;
        });
    }

    /**
     * A new {@link java.util.concurrent.ExecutorService} whose tasks run on this client's cluster. Each call makes
     * one with its own lifecycle: shutting it down closes neither the client nor the other executors.
     */
    public ClusterExecutor executor() {
        return new ClusterExecutor(this);
    }

    /** One task per item, submitted together; the futures are in the items' order. */
    public <T, R> List<DaskFuture<R>> map(SerializableFunction<T, R> fn, Iterable<? extends T> items) {
        Adapters.OfFunction<T, R> task = new Adapters.OfFunction<>(fn);
        List<String> keys = new ArrayList<>();
        for (T ignored : items) {
            keys.add(newKey("map"));
        }
        return functions.whileSending(() -> {
            GraphEncoder enc = new GraphEncoder(functions, new HashSet<>(keys), true);
            List<DaskFuture<R>> futures = new ArrayList<>(keys.size());
            int i = 0;
            for (T item : items) {
                String key = keys.get(i++);
                enc.add(key, fn, task, new Object[]{item});
                futures.add(futureFor(key));
            }
            enc.sendAll(this::queue);
            out.flush();
            return futures;
        });
    }

    /**
     * Submits a graph and keeps the results of {@code outputs} (all keys if none) on the workers. An output
     * that is not a key of the graph may be a key this client already holds (a persisted result reused as
     * is, as a rechunk reuses unchanged blocks): its future is simply one more reference to it.
     *
     * @throws IllegalArgumentException if an output is neither in the graph nor held by this client
     */
    public Map<String, DaskFuture<Object>> persist(TaskGraph graph, String... outputs) {
        List<String> wanted = outputs.length == 0 ? new ArrayList<>(graph.keys()) : List.of(outputs);
        Map<String, DaskFuture<Object>> result = new LinkedHashMap<>();
        List<String> toRun = new ArrayList<>(wanted.size());
        for (String k : wanted) {
            if (result.containsKey(k)) {
                continue;
            }
            if (graph.keys().contains(k)) {
                toRun.add(k);
                result.put(k, null);   // keeps the outputs' order; filled below
                continue;
            }
            FutureState s = keys.acquireIfHeld(k);
            if (s == null) {
                result.values().stream().filter(Objects::nonNull).forEach(DaskFuture::release);
                throw new IllegalArgumentException("output " + k + " is neither a key of the graph nor held by this client");
            }
            result.put(k, new DaskFuture<>(this, s));
        }
        if (!toRun.isEmpty()) {
            // In the outputs' order: the scheduler starts wanted tasks in this order, and hands tasks without
            // inputs to the workers in contiguous runs of it, so the caller's order decides which share a worker.
            functions.whileSending(() -> {
                GraphEncoder enc = new GraphEncoder(functions, new LinkedHashSet<>(toRun), false);
                for (TaskGraph.Node n : graph.inPriorityOrder(toRun)) {
                    enc.add(n.key(), Adapters.identity(n.fn()), n.fn(), n.args());
                }
                for (String k : toRun) {
                    result.put(k, futureFor(k));
                }
                enc.sendAll(this::queue);
                out.flush();
                return null;
            });
        }
        return result;
    }

    /** Submits a graph, brings the values of {@code outputs} back, and releases them on the cluster. */
    public Map<String, Object> compute(TaskGraph graph, String... outputs) {
        Map<String, DaskFuture<Object>> futures = persist(graph, outputs);
        try {
            List<Object> values = gather(new ArrayList<>(futures.values()));
            Map<String, Object> out = new LinkedHashMap<>();
            int i = 0;
            for (String k : futures.keySet()) {
                out.put(k, values.get(i++));
            }
            return out;
        } finally {
            futures.values().forEach(DaskFuture::release);
        }
    }

    // ---- data --------------------------------------------------------------------------------

    /** Places {@code data} on the workers (spread round-robin) and returns a future per item. */
    public <T> List<DaskFuture<T>> scatter(List<T> data) {
        Message workers = request(Message.of(Ops.GET_WORKERS, Map.of("req", requests.incrementAndGet())));
        List<Object> ids = workers.getList("ids");
        List<Object> addrs = workers.getList("addresses");
        if (ids.isEmpty()) {
            throw new IllegalStateException("no workers to scatter to");
        }
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < data.size(); i++) {
            keys.add(newKey("scatter"));
        }
        List<DaskFuture<T>> futures = new ArrayList<>();
        for (String k : keys) {
            futures.add(futureFor(k));
        }
        gatherer.scatter(keys, data, ids, addrs, this::send);
        return futures;
    }

    public <T> DaskFuture<T> scatter(T value) {
        return scatter(List.of(value)).getFirst();
    }

    /** The values of {@code futures}, in order; the first remote failure is raised as {@link RemoteTaskException}. */
    public <T> List<T> gather(Collection<? extends DaskFuture<? extends T>> futures) {
        try {
            return gather(futures, Duration.ofDays(365));
        } catch (TimeoutException e) {
            throw new IllegalStateException(e);
        }
    }

    @SuppressWarnings("unchecked")
    public <T> List<T> gather(Collection<? extends DaskFuture<? extends T>> futures, Duration timeout) throws TimeoutException {
        List<FutureState> list = new ArrayList<>(futures.size());
        for (DaskFuture<? extends T> f : futures) {
            f.checkNotReleased();
            list.add(f.state);
        }
        return (List<T>) gatherer.gather(list, System.nanoTime() + timeout.toNanos());
    }

    Object resultOf(FutureState s, long deadlineNs) throws TimeoutException {
        return gatherer.gather(List.of(s), deadlineNs).getFirst();
    }

    void awaitDone(FutureState s, long deadlineNs) throws TimeoutException {
        Gatherer.awaitDone(s, deadlineNs);
    }

    // ---- waiting -----------------------------------------------------------------------------

    /** Waits until every future is done (finished, erred or cancelled). */
    public void waitAll(Collection<? extends DaskFuture<?>> futures, Duration timeout) throws TimeoutException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (DaskFuture<?> f : futures) {
            Gatherer.awaitDone(f.state, deadline);
        }
    }

    /** Waits until at least one future is done and returns it. */
    public <T> DaskFuture<T> waitAny(Collection<DaskFuture<T>> futures, Duration timeout) throws TimeoutException {
        CompletableFuture<DaskFuture<T>> first = new CompletableFuture<>();
        for (DaskFuture<T> f : futures) {
            f.state.done().thenRun(() -> first.complete(f));
        }
        try {
            return first.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted");
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Iterates over {@code futures} in the order they complete; {@code next()} blocks until one does. */
    public <T> Iterable<DaskFuture<T>> asCompleted(Collection<DaskFuture<T>> futures) {
        return new AsCompleted<>(futures);
    }

    /** Draws a console progress bar on {@code System.err} until every future is done. */
    public void progress(Collection<? extends DaskFuture<?>> futures) {
        progress(futures, System.err);
    }

    public void progress(Collection<? extends DaskFuture<?>> futures, PrintStream to) {
        new ProgressBar(to).show(futures);
    }

    // ---- lifecycle of keys ---------------------------------------------------------------------

    private String newKey(String prefix) {
        return prefix + "-" + token + "-" + counter.incrementAndGet();
    }

    private <T> DaskFuture<T> futureFor(String key) {
        return new DaskFuture<>(this, keys.acquire(key));
    }

    void decref(FutureState s) {
        if (keys.release(s, !closed)) {
            out.pokeLater();   // releases may wait an interval: the next submit usually carries them
        }
    }

    void cancel(FutureState s) {
        if (keys.remove(s) && !closed) {
            send(Message.of(Ops.RELEASE_KEYS, Map.of("keys", List.of(s.key))));
        }
        s.cancelled();
    }

    /** Number of keys this client currently holds futures for. */
    public int heldKeys() {
        return keys.size();
    }

    java.util.concurrent.Executor background() {
        return background;
    }

    /**
     * Sends {@code m} (after the releases waiting to go): written on the calling thread while the stream is sparse
     * ({@link BatchedSend#flush}), so a lone message leaves without a sender-thread hop.
     */
    private void send(Message m) {
        queue(m);
        out.flush();
    }

    /** Queues {@code m} after the releases waiting to go; the caller flushes once it queued a submission's messages. */
    private synchronized void queue(Message m) {
        if (closed) {
            throw new IllegalStateException("client " + id + " is closed");
        }
        checkConnected();
        Message released = keys.releases.take();
        if (released != null) {
            out.offer(released);
        }
        out.offer(m);
    }

    private Message request(Message m) {
        CompletableFuture<Message> reply = new CompletableFuture<>();
        pending.put(m.getLong("req"), reply);
        send(m);
        try {
            return reply.get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            if (e.getCause() instanceof CommClosedException gone) { // failed by markLost: the scheduler is gone
                throw new CommClosedException(gone.getMessage(), gone);
            }
            throw new IllegalStateException("scheduler did not answer " + m.op(), e);
        } finally {
            pending.remove(m.getLong("req"));
        }
    }

    /** The last error message the scheduler sent this client (for diagnostics), or null. */
    public Message lastError() {
        return lastError;
    }

    /**
     * The scheduler's stream in push mode: each message is handled on the transport's delivery thread (futures
     * complete there, and user callbacks run on the background executor, never there). Nothing here writes or
     * waits: replies go through the background executor or the sender.
     */
    private final class StreamHandler implements MessageHandler {
        @Override
        public void onMessage(Message batch) {
            try {
                for (Message m : Batches.unpack(batch)) {
                    Client.this.onMessage(m);
                }
            } catch (RuntimeException e) {
                LOG.warn("client {} could not handle a message from the scheduler: {}", id, e.toString());
            }
        }

        @Override
        public void onClose(CommException cause) {
            markLost(cause.getMessage(), cause);
            markLost("its stream ended", null);
            keys.failPending(closed ? "client " + id + " was closed" : "client " + id + " lost its connection to the scheduler");
        }
    }

    /**
     * Records that the scheduler is gone, says so in one line, and fails the requests waiting for its answers,
     * so that no call waits for a reply that cannot come. Only the first report counts (the reader and the
     * sender may both see the loss), and none after {@link #close}, which ends the connection itself. Called by
     * the reader and the sender threads.
     */
    private void markLost(String why, Throwable cause) {
        if (closed) {
            return;
        }
        CommClosedException gone = new CommClosedException("client " + id + " lost its connection to the scheduler: " + why, cause);
        if (!lost.compareAndSet(null, gone)) {
            return;
        }
        // One line: the cause is the connection's, whose stack says nothing the message does not.
        LOG.warn("client {} lost the scheduler: {}", id, why);
        LOG.debug("client {} lost the scheduler", id, cause);
        pending.values().forEach(reply -> reply.completeExceptionally(gone));
    }

    /** Throws a {@link CommClosedException} if the client lost the scheduler; any thread. */
    private void checkConnected() {
        CommClosedException gone = lost.get();
        if (gone != null) {
            throw new CommClosedException(gone.getMessage(), gone);
        }
    }

    private void onMessage(Message m) {
        if (keys.onMessage(m)) {
            return;
        }
        switch (m.op()) {
            case Ops.WORKERS -> {
                CompletableFuture<Message> r = pending.get(m.getLong("req"));
                if (r != null) {
                    r.complete(m);
                }
            }
            case Ops.FORGET_FUNCTIONS -> forgetFunctions(m.getList("ids").stream().map(String::valueOf).toList());
            case Ops.ERROR -> {
                lastError = m;
                LOG.warn("scheduler reports an error to client {}: {}", id, m.fields());
            }
            default -> LOG.warn("client {} ignores unknown op '{}'", id, m.op());
        }
    }

    /**
     * Answers the scheduler's request to forget functions no task uses any more. On a background thread: it
     * waits for submissions in flight, which the reader thread must not do.
     */
    private void forgetFunctions(List<String> ids) {
        try {
            background.execute(() -> {
                try {
                    functions.forget(ids, forgotten -> send(Message.of(Ops.FUNCTIONS_FORGOTTEN, Map.of("ids", forgotten))));
                } catch (RuntimeException e) {
                    // Closed or lost meanwhile: the scheduler drops this client's functions with the client.
                    LOG.debug("client {} could not answer forget-functions: {}", id, e.toString());
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException closing) {
            LOG.debug("client {} is closing; forget-functions left unanswered", id);
        }
    }

    /** Functions the scheduler holds for this client (for tests). */
    int functionsSent() {
        return functions.sentCount();
    }

    /** Drops the connection without a goodbye, as a crashed client would (for tests of the scheduler). */
    void abortConnection() {
        closed = true;
        out.abort();
        keys.failPending("client " + id + " was aborted");
        pool.close();
        background.shutdownNow();
    }

    /** Releases every key this client holds, closes the connection (and the cluster it started, if any). */
    @Override
    public void close() {
        synchronized (this) {   // the lock of queue(): every message sent before is queued before the goodbye
            if (closed) {
                return;
            }
            // Before the goodbye, not after: the scheduler answers it by closing the connection, which the reader
            // may see before this thread goes on, and must then take for the close it is, not a lost scheduler.
            closed = true;
        }
        if (lost.get() == null) {   // else there is nobody to say goodbye to
            out.send(Message.of(Ops.CLOSE_CLIENT));
        }
        out.close(2000);
        pool.close();
        background.shutdownNow();
        comm.abort();
        keys.failPending("client " + id + " was closed");
        AutoCloseable cluster = owned;
        if (cluster != null) {
            try {
                cluster.close();
            } catch (Exception e) {
                LOG.warn("closing what this client owned failed", e);
            }
        }
    }
}
