package io.dask4j.runtime.scheduler;

import io.dask4j.comm.Message;
import io.dask4j.comm.ProtocolException;
import io.dask4j.runtime.protocol.ErrorInfo;
import io.dask4j.runtime.protocol.MessageSink;
import io.dask4j.runtime.protocol.Ops;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The scheduler's state machine: clients, workers and tasks, driven by messages and emitting messages
 * to {@link MessageSink}s. Pure and single-threaded: no I/O, no locks, no clocks of its own (callers
 * pass {@code nowNs}). The {@link Scheduler} runs it on one event-loop thread; tests drive it directly
 * by feeding messages and reading what the sinks received.
 *
 * <p>Malformed messages raise {@link ProtocolException} from the {@code on*} methods, after which the
 * state is still consistent for everyone else; the caller turns them into an error reply.
 */
final class SchedulerState {
    /**
     * Missing-data reports a task may cause before it errs. Each one recomputes the input, which ends the
     * loop when its holder had died; a task still missing inputs after this many rounds meets workers that
     * cannot reach one another (a listen address its peers cannot connect to), which no retry mends.
     */
    static final int MAX_MISSING_DATA_ROUNDS = 5;

    final Transitions tx;
    final Map<String, ClientState> clients = new LinkedHashMap<>();
    private long generation;
    private long workersLost;
    /** Workers that may hold {@link WorkerState#uncountedCopies}: the only ones each batch looks at. */
    private final java.util.Set<WorkerState> withUncountedCopies = new java.util.LinkedHashSet<>();

    /** @param unusedFunctionBytes see {@link SchedulerConfig#unusedFunctionBytes()} */
    SchedulerState(int allowedFailures, long unusedFunctionBytes) {
        this.tx = new Transitions(allowedFailures, unusedFunctionBytes);
    }

    ClientState addClient(String id, String scheme, MessageSink sink) {
        ClientState c = new ClientState(id, scheme, sink);
        clients.put(id, c);
        sink.send(Message.of(Ops.REGISTERED, Map.of("id", id)));
        return c;
    }

    void removeClient(ClientState c) {
        if (clients.remove(c.id) == null) {
            return;
        }
        List<TaskState> wanted = new ArrayList<>();
        for (TaskState t : tx.tasks.values()) {
            if (t.wantedBy(c)) {
                wanted.add(t);
            }
        }
        for (TaskState t : wanted) {
            t.removeWanter(c);
            tx.maybeRelease(t);
        }
        tx.functions.clientGone(c);
        tx.assignReady();
    }

    WorkerState addWorker(Message register, MessageSink sink, long nowNs, long heartbeatMs) {
        List<String> addresses = strings(register, "addresses");
        if (addresses.isEmpty()) {
            throw new ProtocolException("register-worker needs at least one address");
        }
        String id = addresses.getFirst();
        if (tx.workers.containsKey(id)) {
            throw new ProtocolException("a worker is already registered at " + id);
        }
        Map<String, String> byScheme = new HashMap<>();
        for (String a : addresses) {
            byScheme.putIfAbsent(a.substring(0, Math.max(0, a.indexOf(':'))), a);
        }
        WorkerState w = new WorkerState(id, register.has("name") ? register.getString("name") : id, addresses,
                byScheme, register.getInt("nthreads"), register.getLong("memory_limit"), sink, nowNs);
        w.pid = register.fields().get("pid") instanceof Number pid ? pid.longValue() : 0;
        tx.workers.put(id, w);
        sink.send(Message.of(Ops.REGISTERED, Map.of("id", id, "heartbeat_ms", heartbeatMs)));
        tx.assignReady();
        return w;
    }

    void removeWorker(WorkerState w) {
        if (!w.alive) {
            return;
        }
        workersLost++;
        tx.workerLost(w);
    }

    /** Workers silent for longer than {@code timeoutNs}; the caller closes their comms and removes them. */
    List<WorkerState> silentWorkers(long nowNs, long timeoutNs) {
        List<WorkerState> out = new ArrayList<>();
        for (WorkerState w : tx.workers.values()) {
            if (nowNs - w.lastSeenNs > timeoutNs) {
                out.add(w);
            }
        }
        return out;
    }

    /** Handles one message from a client; call {@link #assign()} after a batch. */
    void onClientMessage(ClientState c, Message m) {
        switch (m.op()) {
            case Ops.UPDATE_GRAPH -> updateGraph(c, m);
            case Ops.UPDATE_DATA -> updateData(c, m);
            case Ops.RELEASE_KEYS -> {
                for (String key : strings(m, "keys")) {
                    TaskState t = tx.tasks.get(key);
                    if (t != null && t.removeWanter(c)) {
                        tx.maybeRelease(t);
                    }
                }
            }
            case Ops.GET_WORKERS -> {
                List<Object> ids = new ArrayList<>();
                List<Object> addrs = new ArrayList<>();
                List<Object> threads = new ArrayList<>();
                for (WorkerState w : tx.workers.values()) {
                    ids.add(w.id);
                    addrs.add(w.addressFor(c.scheme));
                    threads.add((long) w.nthreads);
                }
                c.sink.send(Message.of(Ops.WORKERS, Map.of("req", m.getLong("req"), "ids", ids, "addresses", addrs,
                        "nthreads", threads)));
            }
            case Ops.FUNCTIONS_FORGOTTEN -> tx.functions.forgotten(c, strings(m, "ids"));
            case Ops.HEARTBEAT -> { }
            default -> throw new ProtocolException("unknown op '" + m.op() + "' from a client");
        }
    }

    /** Handles one message from a worker; call {@link #assign()} after a batch. */
    void onWorkerMessage(WorkerState w, Message m, long nowNs) {
        w.lastSeenNs = nowNs;
        switch (m.op()) {
            case Ops.TASKS_FINISHED -> {
                int n = io.dask4j.runtime.protocol.ColumnBatch.rows(m, "keys", "runs", "nbytes");
                List<Object> keys = m.getList("keys");
                List<Object> runs = m.getList("runs");
                List<Object> sizes = m.getList("nbytes");
                // start/stop (worker clock, µs since the epoch) feed the dashboard's task stream; optional
                List<Object> starts = m.has("start") ? m.getList("start") : null;
                List<Object> stops = m.has("stop") ? m.getList("stop") : null;
                if (starts != null && (stops == null || starts.size() != n || stops.size() != n)) {
                    throw new ProtocolException("tasks-finished: start and stop columns must have one row per key");
                }
                for (int i = 0; i < n; i++) {
                    if (!(keys.get(i) instanceof String key) || !(runs.get(i) instanceof Number run)
                            || !(sizes.get(i) instanceof Number nbytes)) {
                        throw new ProtocolException("tasks-finished: bad row " + i);
                    }
                    long start = starts != null && starts.get(i) instanceof Number s ? s.longValue() : 0;
                    long stop = stops != null && stops.get(i) instanceof Number s ? s.longValue() : 0;
                    finished(w, key, run.intValue(), nbytes.longValue(), start, stop);
                }
            }
            case Ops.TASK_ERRED -> {
                TaskState t = tx.tasks.get(m.getString("key"));
                ErrorInfo error = ErrorInfo.from(m);
                if (t != null && t.status == TaskStatus.PROCESSING && t.processingOn == w && t.runId == m.getInt("run")) {
                    w.processing.remove(t);
                    t.processingOn = null;
                    tx.erred(t, error);
                }
            }
            case Ops.MISSING_DATA -> missingData(w, m);
            case Ops.DATA_LOST -> {
                TaskState dep = tx.tasks.get(m.getString("key"));
                if (dep != null && dep.status == TaskStatus.MEMORY) {
                    dropCopies(dep, w.id);
                }
            }
            case Ops.HEARTBEAT -> w.metrics = io.dask4j.runtime.protocol.WorkerMetrics.from(m);
            default -> throw new ProtocolException("unknown op '" + m.op() + "' from a worker");
        }
    }

    private void finished(WorkerState w, String key, int run, long nbytes, long startMicros, long stopMicros) {
        TaskState t = tx.tasks.get(key);
        if (t != null && t.status == TaskStatus.PROCESSING && t.processingOn == w && t.runId == run) {
            TaskGroup g = t.group;
            tx.finished(w, t, nbytes);
            if (stopMicros > startMicros && startMicros > 0) {
                g.computeMicros += stopMicros - startMicros;
                tx.stream.record(w.id, g, key, startMicros, stopMicros);
            }
        } else if (t == null || t.processingOn != w) {
            boolean holds = t != null && t.holders != null && t.holders.contains(w);
            if (!holds) {
                w.sink.free(key);
            }
        }
    }

    /** Places ready tasks, then flushes every peer's columnar messages: call after each batch of messages. */
    void assign() {
        freeUncountedCopies();
        tx.assignReady();
        tx.functions.sweep();
        for (WorkerState w : tx.workers.values()) {
            w.sink.flush();
        }
        for (ClientState c : clients.values()) {
            c.sink.flush();
        }
    }

    private void missingData(WorkerState w, Message m) {
        TaskState t = tx.tasks.get(m.getString("key"));
        TaskState dep = tx.tasks.get(m.getString("dep"));
        String from = m.getString("from");
        // Judged before the input is dropped: losing its last copy sends t back to waiting by itself.
        boolean current = t != null && t.status == TaskStatus.PROCESSING && t.processingOn == w && t.runId == m.getInt("run");
        if (dep != null && dep.status == TaskStatus.MEMORY) {
            dropCopies(dep, from);
        }
        if (!current) {
            return;
        }
        if (++t.missingDataRounds > MAX_MISSING_DATA_ROUNDS) {
            tx.erred(t, ErrorInfo.simple(t.key, "io.dask4j.runtime.MissingDataException", "worker " + w.id
                    + " could not fetch input " + m.getString("dep") + " of " + t.key + " from " + from + "; inputs of "
                    + t.key + " went missing " + t.missingDataRounds + " times: can the workers reach each other's "
                    + "listen addresses?"));
            return;
        }
        if (t.status == TaskStatus.PROCESSING && t.processingOn == w) {
            w.processing.remove(t);
            t.processingOn = null;
            tx.setStatus(t, TaskStatus.WAITING);
            tx.requeue(t);
        }
    }

    /**
     * Forgets the copies of {@code dep} on the workers listening at {@code from}; losing its last copy makes it
     * lost (recomputed where its inputs allow).
     */
    private void dropCopies(TaskState dep, String from) {
        List<WorkerState> unreachable = new ArrayList<>(1);
        for (WorkerState h : new ArrayList<>(dep.holders)) {
            if (h.addresses.contains(from)) {
                dep.holders.remove(h);
                h.has.remove(dep);
                h.nbytes -= dep.nbytes;
                unreachable.add(h);
            }
        }
        if (dep.holders.isEmpty()) {
            tx.lost(dep);
        }
        // A holder that is alive but was not reached keeps a copy nobody counts any more: have it dropped,
        // once none of its own running tasks reads it (lost() above cancelled those of a lost input).
        for (WorkerState h : unreachable) {
            if (h.alive) {
                h.uncountedCopies.add(dep);
                withUncountedCopies.add(h);
            }
        }
        if (!unreachable.isEmpty() && dep.status == TaskStatus.MEMORY) {
            // Clients may have been told the copy is on a holder that no longer counts: point them at one that does.
            dep.forEachWanter(c -> tx.notifyInMemory(c, dep));
        }
    }

    /** Frees the uncounted copies (see {@link WorkerState#uncountedCopies}) that no running task reads any more. */
    private void freeUncountedCopies() {
        if (withUncountedCopies.isEmpty()) {
            return;
        }
        for (java.util.Iterator<WorkerState> workers = withUncountedCopies.iterator(); workers.hasNext(); ) {
            WorkerState w = workers.next();
            if (!w.alive) {
                workers.remove();
                continue;
            }
            for (java.util.Iterator<TaskState> it = w.uncountedCopies.iterator(); it.hasNext(); ) {
                TaskState copy = it.next();
                if (runsADependentOf(w, copy)) {
                    continue;
                }
                it.remove();
                // The key may live again (resubmitted after it was forgotten) and be held or computed here.
                TaskState current = tx.tasks.get(copy.key);
                boolean inUseHere = current != null && (current.processingOn == w
                        || (current.holders != null && current.holders.contains(w)));
                if (!inUseHere) {
                    w.sink.free(copy.key);
                }
            }
            if (w.uncountedCopies.isEmpty()) {
                workers.remove();
            }
        }
    }

    private static boolean runsADependentOf(WorkerState w, TaskState dep) {
        for (TaskState d : dep.dependents()) {
            if (d.status == TaskStatus.PROCESSING && d.processingOn == w) {
                return true;
            }
        }
        return false;
    }

    private void updateGraph(ClientState c, Message m) {
        List<String> keys = strings(m, "keys");
        List<String> fns = m.has("fns_dict") ? dictionaryStrings(m, "fns") : strings(m, "fns");
        List<Object> args = m.getList("args");
        List<Object> deps = m.getList("deps");
        if (fns.size() != keys.size() || args.size() != keys.size() || deps.size() != keys.size()) {
            throw new ProtocolException("update-graph: keys, fns, args and deps must have the same length");
        }
        if (m.has("functions")) {
            for (Map.Entry<String, Object> e : m.getMap("functions").entrySet()) {
                if (!(e.getValue() instanceof byte[] bytes)) {
                    throw new ProtocolException("update-graph: function " + e.getKey() + " is not bytes");
                }
                tx.functions.received(c, e.getKey(), bytes);
            }
        }
        for (String fn : fns) {
            if (!tx.functions.knows(fn)) {
                throw new ProtocolException("update-graph refers to unknown function " + fn);
            }
        }
        long gen = ++generation;
        List<TaskState> fresh = new ArrayList<>(keys.size());
        List<Integer> freshIndex = new ArrayList<>(keys.size());
        for (int i = 0; i < keys.size(); i++) {
            if (tx.tasks.containsKey(keys.get(i))) {
                continue;
            }
            if (!(args.get(i) instanceof byte[] a)) {
                throw new ProtocolException("update-graph: args of " + keys.get(i) + " are not bytes");
            }
            TaskState t = new TaskState(keys.get(i));
            t.fnId = fns.get(i);
            t.args = a;
            t.priority = (gen << 32) | i;
            tx.created(t);
            fresh.add(t);
            freshIndex.add(i);
        }
        List<TaskState> broken = new ArrayList<>();
        for (int j = 0; j < fresh.size(); j++) {
            TaskState t = fresh.get(j);
            if (!(deps.get(freshIndex.get(j)) instanceof List<?> names)) {
                throw new ProtocolException("update-graph: deps of " + t.key + " are not a list");
            }
            TaskState[] resolved = new TaskState[names.size()];
            int n = 0;
            for (Object name : names) {
                TaskState d = tx.tasks.get(String.valueOf(name));
                if (d == null) {
                    broken.add(t);
                    continue;
                }
                resolved[n++] = d;
                d.addDependent(t);
            }
            t.deps = n == resolved.length ? (n == 0 ? TaskState.NONE : resolved) : java.util.Arrays.copyOf(resolved, n);
        }
        List<TaskState> wanted = new ArrayList<>();
        for (String key : strings(m, "wants")) {
            TaskState t = tx.tasks.get(key);
            if (t == null) {
                c.sink.send(Message.of(Ops.TASK_ERRED, withKey(ErrorInfo.simple(key, "java.util.NoSuchElementException",
                        "key " + key + " is unknown to the scheduler (released or never submitted)"))));
                continue;
            }
            t.addWanter(c);
            wanted.add(t);
        }
        for (TaskState t : broken) {
            tx.erred(t, ErrorInfo.simple(t.key, "java.util.NoSuchElementException",
                    "task " + t.key + " depends on a key the scheduler does not know (released or never submitted)"));
        }
        for (TaskState t : wanted) {
            switch (t.status) {
                case MEMORY -> tx.notifyInMemory(c, t);
                case ERRED -> tx.notifyErred(c, t);
                case RELEASED -> tx.compute(t);
                default -> { }
            }
        }
        for (TaskState t : fresh) {
            tx.maybeRelease(t);
        }
    }

    private void updateData(ClientState c, Message m) {
        List<String> keys = strings(m, "keys");
        List<Object> sizes = m.getList("nbytes");
        WorkerState w = tx.workers.get(m.getString("worker"));
        if (sizes.size() != keys.size()) {
            throw new ProtocolException("update-data: keys and nbytes must have the same length");
        }
        for (int i = 0; i < keys.size(); i++) {
            String key = keys.get(i);
            if (w == null) {
                c.sink.send(Message.of(Ops.TASK_ERRED, withKey(ErrorInfo.simple(key, "io.dask4j.runtime.LostDataException",
                        "scattered data " + key + " went to a worker that is gone"))));
                continue;
            }
            TaskState t = tx.tasks.get(key);
            if (t == null) {
                t = new TaskState(key);
                tx.created(t);
            }
            if (t.status != TaskStatus.MEMORY) {
                t.nbytes = ((Number) sizes.get(i)).longValue();
                tx.setStatus(t, TaskStatus.MEMORY);
            }
            tx.addHolder(t, w);
            t.addWanter(c);
            tx.notifyInMemory(c, t);
        }
    }

    private static Map<String, Object> withKey(ErrorInfo e) {
        Map<String, Object> f = e.toFields();
        f.put("key", e.key());
        return f;
    }

    /** A column of indexes into {@code <field>_dict}, resolved to the dictionary's strings. */
    static List<String> dictionaryStrings(Message m, String field) {
        List<String> dict = strings(m, field + "_dict");
        List<Object> raw = m.getList(field);
        List<String> out = new ArrayList<>(raw.size());
        for (Object o : raw) {
            if (!(o instanceof Number n) || n.intValue() < 0 || n.intValue() >= dict.size()) {
                throw new ProtocolException("field '" + field + "' of '" + m.op() + "' has a bad dictionary index: " + o);
            }
            out.add(dict.get(n.intValue()));
        }
        return out;
    }

    static List<String> strings(Message m, String field) {
        List<Object> raw = m.getList(field);
        List<String> out = new ArrayList<>(raw.size());
        for (Object o : raw) {
            if (!(o instanceof String s)) {
                throw new ProtocolException("field '" + field + "' of '" + m.op() + "' must hold strings");
            }
            out.add(s);
        }
        return out;
    }

    long workersLost() {
        return workersLost;
    }

    SchedulerSnapshot snapshot(long messages, long frameBytes) {
        List<WorkerSnapshot> ws = new ArrayList<>();
        for (WorkerState w : tx.workers.values()) {
            ws.add(new WorkerSnapshot(w.id, w.name, w.addresses, w.nthreads, w.memoryLimit, w.processing.size(),
                    w.has.size(), w.nbytes, w.tasksCompleted));
        }
        return new SchedulerSnapshot(tx.counts(), ws, clients.size(), tx.completed, tx.erred, workersLost, messages, frameBytes,
                tx.functions.size());
    }
}
