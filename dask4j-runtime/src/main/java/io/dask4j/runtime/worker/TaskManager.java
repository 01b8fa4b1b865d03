package io.dask4j.runtime.worker;

import io.dask4j.comm.serialize.Deserializer;
import io.dask4j.comm.Message;
import io.dask4j.comm.ProtocolException;
import io.dask4j.runtime.task.Arguments;
import io.dask4j.runtime.task.KeyRef;
import io.dask4j.runtime.task.TaskFunction;
import io.dask4j.runtime.loop.Awake;
import io.dask4j.runtime.loop.IdleOptions;
import io.dask4j.runtime.protocol.Codec;
import io.dask4j.runtime.protocol.ErrorInfo;
import io.dask4j.runtime.protocol.MessageSink;
import io.dask4j.runtime.protocol.NullValue;
import io.dask4j.runtime.protocol.Ops;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker's task bookkeeping: assignments from the scheduler, inputs to fetch, tasks ready to run (by
 * priority), and the rules for when data may be dropped. Keys the scheduler knows this worker holds are
 * "owned" and live until the scheduler frees them; inputs fetched from peers live while a local task
 * needs them.
 *
 * <p>Threads: the worker's control loop calls {@code on*}, fetch threads report transfers, task
 * threads run {@link #runTasks()}. {@code tasks} and {@code owned} are concurrent, so a task without
 * inputs to fetch starts and finishes without this object's monitor (a monitor shared by the stream
 * thread and the task threads stalled both under load); the fetch bookkeeping (waiters, references to
 * fetched inputs) is guarded by the monitor. User code runs outside it.
 */
final class TaskManager {
    private static final Logger LOG = LoggerFactory.getLogger(TaskManager.class);
    private final DataStore store;
    private final Deserializer decoder;
    private final MessageSink toScheduler;
    private final String workerId;
    private final ReadyQueue ready = new ReadyQueue();
    private final Map<String, WorkerTask> tasks = new ConcurrentHashMap<>();
    private final Map<String, List<WorkerTask>> waitingFor = new HashMap<>();
    private final Map<String, Integer> fetchedRefs = new HashMap<>();
    private final Set<String> owned = ConcurrentHashMap.newKeySet();
    private final Map<String, byte[]> functionBytes = new ConcurrentHashMap<>();
    private final Map<String, TaskFunction<?>> functions = new ConcurrentHashMap<>();
    private Fetcher fetcher;
    private final io.dask4j.runtime.protocol.ColumnBatch finished =
            new io.dask4j.runtime.protocol.ColumnBatch(Ops.TASKS_FINISHED, "keys", "runs", "nbytes", "start", "stop");
    private Runnable onFinished = () -> { };
    private Runnable flushFinished = () -> { };
    /** How an idle task thread stays awake before it parks (the worker's {@code WorkerConfig.idle}). */
    private final IdleOptions idle;
    /** An idle task thread drives the transport (MPI) while it waits: its next task then arrives on this thread. */
    private final io.dask4j.comm.CallerProgress progress = io.dask4j.comm.Comms.callerProgress();
    final AtomicLong tasksRun = new AtomicLong();
    final AtomicLong tasksFailed = new AtomicLong();

    TaskManager(DataStore store, MessageSink toScheduler, String workerId, Deserializer decoder, IdleOptions idle) {
        this.idle = idle;
        this.store = store;
        this.decoder = decoder;
        this.toScheduler = toScheduler;
        this.workerId = workerId;
    }

    void setFetcher(Fetcher fetcher) {
        this.fetcher = fetcher;
    }

    /**
     * Finished tasks are reported in columns. When no other task is ready, the task thread that finished one
     * calls {@code flush} (it writes the report itself: the scheduler hears at once, with no hand-off); else
     * {@code poke} is called for the first row of a batch, and the stream's sender coalesces the rows that follow.
     */
    io.dask4j.runtime.protocol.ColumnBatch finishedBatch(Runnable poke, Runnable flush) {
        this.onFinished = poke;
        this.flushFinished = flush;
        return finished;
    }

    /** A columnar {@code compute-tasks} message. */
    void onComputeTasks(Message m) {
        int n = io.dask4j.runtime.protocol.ColumnBatch.rows(m, "keys", "runs", "fns", "args", "prios", "deps", "fnbs");
        List<Object> keys = m.getList("keys");
        List<Object> runs = m.getList("runs");
        List<Object> fns = m.getList("fns");
        List<Object> args = m.getList("args");
        List<Object> prios = m.getList("prios");
        List<Object> deps = m.getList("deps");
        List<Object> fnbs = m.getList("fnbs");
        try {
            for (int i = 0; i < n; i++) {
                Object fn = io.dask4j.runtime.protocol.ColumnBatch.decoded(m, "fns", fns, i);
                if (!(keys.get(i) instanceof String key) || !(runs.get(i) instanceof Number run)
                        || !(fn instanceof String fnId) || !(args.get(i) instanceof byte[] a)
                        || !(prios.get(i) instanceof Number prio)) {
                    throw new ProtocolException("compute-tasks: bad row " + i);
                }
                if (fnbs.get(i) instanceof byte[] fnb) {
                    functionBytes.put(fnId, fnb);
                }
                @SuppressWarnings("unchecked")
                Map<String, Object> d = deps.get(i) instanceof Map<?, ?> map ? (Map<String, Object>) map : Map.of();
                compute(key, run.intValue(), fnId, a, prio.longValue(), d);
            }
        } finally {
            // The inputs of the whole batch are queued first, so that keys from one peer share requests.
            fetcher.flush();
        }
    }

    private void compute(String key, int run, String fnId, byte[] args, long prio, Map<String, Object> deps) {
        WorkerTask t = new WorkerTask(key, run, fnId, args, prio);
        WorkerTask old = tasks.put(key, t);
        if (old != null) {
            cancel(old);
        }
        if (deps.isEmpty()) {
            ready.add(t);
            return;
        }
        synchronized (this) {
            for (Map.Entry<String, Object> e : deps.entrySet()) {
                String dep = e.getKey();
                if (owned.contains(dep)) {
                    continue;
                }
                t.fetchedDeps.add(dep);
                fetchedRefs.merge(dep, 1, Integer::sum);
                if (!store.contains(dep)) {
                    t.missing++;
                    List<WorkerTask> waiters = waitingFor.get(dep);
                    if (waiters == null) {
                        waitingFor.put(dep, waiters = new ArrayList<>(2));
                        List<String> holders = new ArrayList<>();
                        if (!(e.getValue() instanceof List<?> where)) {
                            throw new ProtocolException("compute-task: holders of " + dep + " are not a list");
                        }
                        for (Object h : where) {
                            holders.add(String.valueOf(h));
                        }
                        fetcher.request(dep, holders);
                    }
                    waiters.add(t);
                }
            }
        }
        if (t.missing == 0) {
            ready.add(t);
        }
    }

    void onFreeKeys(List<Object> keys) {
        for (Object o : keys) {
            String key = String.valueOf(o);
            WorkerTask t = tasks.remove(key);
            if (t != null) {
                cancel(t);
            }
            owned.remove(key);
            synchronized (this) {
                if (!fetchedRefs.containsKey(key)) {
                    store.remove(key);
                }
            }
        }
    }

    /** The scheduler dropped these functions: no task it sent here runs them any more. */
    void onFreeFunctions(List<Object> ids) {
        for (Object id : ids) {
            functionBytes.remove(String.valueOf(id));
            functions.remove(String.valueOf(id));
        }
    }

    int functionsHeld() {
        return functionBytes.size();
    }

    private void cancel(WorkerTask t) {
        t.cancelled = true;
        synchronized (this) {
            releaseInputs(t);
        }
    }

    private void releaseInputs(WorkerTask t) {
        for (String dep : t.fetchedDeps) {
            Integer n = fetchedRefs.get(dep);
            if (n == null) {
                continue;
            }
            if (n <= 1) {
                fetchedRefs.remove(dep);
                if (!owned.contains(dep)) {
                    store.remove(dep);
                }
            } else {
                fetchedRefs.put(dep, n - 1);
            }
        }
        t.fetchedDeps.clear();
    }

    synchronized void onFetched(String key, Object value, long nbytes) {
        List<WorkerTask> waiters = waitingFor.remove(key);
        if (!fetchedRefs.containsKey(key) || waiters == null) {
            return;
        }
        try {
            store.put(key, value, nbytes);
        } catch (RuntimeException e) {
            // The input cannot be kept (a spill that could not write): the tasks waiting for it fail, saying why,
            // instead of waiting for it forever.
            for (WorkerTask t : waiters) {
                if (!t.cancelled) {
                    fail(t, e);
                }
            }
            return;
        }
        for (WorkerTask t : waiters) {
            if (!t.cancelled && --t.missing == 0) {
                ready.add(t);
            }
        }
    }

    synchronized void onFetchFailed(String key, String from) {
        List<WorkerTask> waiters = waitingFor.remove(key);
        if (waiters == null) {
            return;
        }
        for (WorkerTask t : waiters) {
            if (!t.cancelled && tasks.remove(t.key, t)) {
                cancel(t);
                toScheduler.send(Message.of(Ops.MISSING_DATA, Map.of("key", t.key, "run", t.run, "dep", key, "from", from)));
            }
        }
    }

    /** A dependency arrived but could not be decoded here: the tasks waiting for it fail with {@code error}. */
    void onFetchRefused(String key, RuntimeException error) {
        List<WorkerTask> waiters;
        synchronized (this) {
            waiters = waitingFor.remove(key);
        }
        if (waiters != null) {
            for (WorkerTask t : waiters) {
                fail(t, error);
            }
        }
    }

    /** Stores data a client scattered here; the scheduler learns of it from the client. */
    void putOwned(String key, Object value, long nbytes) {
        store.put(key, value, nbytes);
        owned.add(key);
    }

    Set<String> ownedKeys() {
        return new HashSet<>(owned);
    }

    private void fail(WorkerTask t, Throwable e) {
        if (tasks.remove(t.key, t)) {
            cancel(t);
            reportErred(t, e);
        }
    }

    /** Tells the scheduler that {@code t} failed with {@code e}; for a task already taken off {@code tasks}. */
    private void reportErred(WorkerTask t, Throwable e) {
        tasksFailed.incrementAndGet();
        Map<String, Object> f = ErrorInfo.of(t.key, e, workerId).toFields();
        f.put("key", t.key);
        f.put("run", t.run);
        toScheduler.send(Message.of(Ops.TASK_ERRED, f));
    }

    /** The body of each task thread: runs ready tasks by priority until interrupted. */
    void runTasks() {
        while (!Thread.currentThread().isInterrupted()) {
            WorkerTask t = ready.poll();
            if (t == null) {
                // The next task often comes right after this one's report: stay awake briefly before parking.
                Awake.poll(idle, () -> !ready.isEmpty() || Thread.currentThread().isInterrupted(), progress);
                try {
                    t = ready.take();
                } catch (InterruptedException e) {
                    return;
                }
            }
            if (!t.cancelled) {
                io.dask4j.comm.stats.LatencyTrace.mark("task starts");
                try {
                    run(t);
                } catch (RuntimeException | Error e) {
                    // Not the task's own failure (run reports those) but ours: the task fails, the thread lives on.
                    LOG.error("worker {} failed to run task {}", workerId, t.key, e);
                    fail(t, e);
                }
            }
        }
    }

    private void run(WorkerTask t) {
        Object result;
        long startMicros = TaskClock.nowMicros();
        TaskRunEvent event = TaskRunEvent.start();
        try {
            TaskFunction<?> fn = function(t.fnId);
            Object[] args = (Object[]) Arguments.replace(Codec.fromBytes(t.args, decoder), KeyRef.class, this::valueOf);
            result = fn.apply(args);
        } catch (SpilledValueLostException e) {
            // An input's spill file did not read back: not the task's failure. The scheduler (told of the lost
            // key by the store) recomputes it and runs this task again, as for an input that could not be fetched.
            if (!t.cancelled && tasks.remove(t.key, t)) {
                cancel(t);
                toScheduler.send(Message.of(Ops.MISSING_DATA, Map.of("key", t.key, "run", t.run, "dep", e.key(),
                        "from", workerId)));
            }
            return;
        } catch (Throwable e) {
            TaskRunEvent.finish(event, t.key, workerId);
            // Whatever the task threw, an OutOfMemoryError or a StackOverflowError included, is the task's
            // failure: the future reports it, and this thread lives on to run the next task. Rethrown, it would
            // end the thread and leave the task running on the scheduler's books forever.
            if (e instanceof VirtualMachineError && !(e instanceof OutOfMemoryError || e instanceof StackOverflowError)) {
                LOG.error("task {} on {} hit a JVM error; reported as the task's failure", t.key, workerId, e);
            }
            fail(t, e);
            return;
        }
        long stopMicros = TaskClock.nowMicros();
        TaskRunEvent.finish(event, t.key, workerId);
        tasksRun.incrementAndGet();
        long nbytes = Sizes.estimate(result);
        if (!t.cancelled && tasks.remove(t.key, t)) {
            try {
                store.put(t.key, NullValue.wrap(result), nbytes);
            } catch (RuntimeException e) {
                // The result cannot be kept (a spill that could not write): the task fails, saying why.
                cancel(t);
                reportErred(t, e);
                return;
            }
            owned.add(t.key);
            if (!t.fetchedDeps.isEmpty()) {
                synchronized (this) {
                    releaseInputs(t);
                }
            }
            // start/stop: the dashboard's task stream (start includes unpacking the arguments)
            boolean first = finished.add(t.key, (long) t.run, nbytes, startMicros, stopMicros);
            if (ready.isEmpty()) {
                flushFinished.run();
            } else if (first) {
                onFinished.run();
            }
        }
    }

    private Object valueOf(KeyRef ref) {
        Object v = store.get(ref.key());
        if (v == null) {
            throw new NoSuchElementException("input " + ref.key() + " is not on worker " + workerId);
        }
        return NullValue.unwrap(v);
    }

    private TaskFunction<?> function(String fnId) {
        TaskFunction<?> fn = functions.get(fnId);
        if (fn == null) {
            byte[] bytes = functionBytes.get(fnId);
            if (bytes == null) {
                throw new IllegalStateException("worker " + workerId + " does not hold function " + fnId
                        + " (never received, or freed since)");
            }
            fn = (TaskFunction<?>) Codec.fromBytes(bytes, decoder);
            functions.put(fnId, fn);
            if (functionBytes.get(fnId) != bytes) {
                functions.remove(fnId, fn);   // freed meanwhile: do not keep a copy nobody will free
            }
        }
        return fn;
    }
}
