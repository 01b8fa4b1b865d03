package io.dask4j.runtime.scheduler;

import io.dask4j.comm.Message;
import io.dask4j.runtime.protocol.ErrorInfo;
import io.dask4j.runtime.protocol.Ops;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The task lifecycle of the scheduler: computing, finishing, erring, losing, releasing and forgetting
 * tasks, and placing ready tasks on workers. Single-threaded: only the scheduler's event loop (or a
 * test) calls it. Every per-task step is O(dependencies + dependents), never O(tasks).
 *
 * <p>Cascades (computing a task's released inputs, erring its dependents, releasing and forgetting its inputs) do
 * not recurse: each step {@link #cascade}s the next onto a work list that the outermost call drains before it
 * returns, as Dask's scheduler loops over its recommendations. So the stack stays a few frames deep however long
 * the chain (a chain of 10,000 tasks released at once), and any thread that owns the event loop may run the state
 * machine, a transport's delivery thread with an ordinary stack included.
 */
final class Transitions {
    final Map<String, TaskState> tasks = new HashMap<>();
    final Map<String, WorkerState> workers = new LinkedHashMap<>();
    final FunctionRegistry functions;
    private final int[] counts = new int[TaskStatus.values().length];
    private final ArrayDeque<TaskState> ready = new ArrayDeque<>();
    /** Steps of a cascade waiting to run, and whether a call further up the stack is draining them. */
    private final ArrayDeque<Runnable> cascade = new ArrayDeque<>();
    private boolean cascading;
    private final int allowedFailures;
    final TaskGroups groups = new TaskGroups();
    final TaskStreamRing stream = new TaskStreamRing();
    long completed;
    long erred;

    Transitions(int allowedFailures, long unusedFunctionBytes) {
        this.allowedFailures = allowedFailures;
        this.functions = new FunctionRegistry(unusedFunctionBytes);
    }

    void setStatus(TaskState t, TaskStatus s) {
        counts[t.status.ordinal()]--;
        counts[s.ordinal()]++;
        TaskGroup g = t.group;
        g.counts[t.status.ordinal()]--;
        g.counts[s.ordinal()]++;
        if (t.status == TaskStatus.MEMORY) {
            g.nbytesInMemory -= t.nbytes;
        }
        if (s == TaskStatus.MEMORY) {
            g.nbytesInMemory += t.nbytes;
        } else if (s == TaskStatus.ERRED) {
            g.erred++;
        }
        t.status = s;
    }

    void created(TaskState t) {
        counts[t.status.ordinal()]++;
        TaskGroup g = groups.of(t.key);
        t.group = g;
        g.total++;
        g.counts[t.status.ordinal()]++;
        tasks.put(t.key, t);
        if (t.fnId != null) {
            functions.taskCreated(t.fnId);
        }
    }

    Map<TaskStatus, Integer> counts() {
        Map<TaskStatus, Integer> out = new EnumMap<>(TaskStatus.class);
        for (TaskStatus s : TaskStatus.values()) {
            if (s != TaskStatus.FORGOTTEN) {
                out.put(s, counts[s.ordinal()]);
            }
        }
        return out;
    }

    /** Moves a released (or lost) task towards memory: waiting on its inputs, which are computed if released. */
    void compute(TaskState t) {
        if (t.status != TaskStatus.RELEASED) {
            return;
        }
        if (t.fnId == null) {
            erred(t, ErrorInfo.simple(t.key, "io.dask4j.runtime.LostDataException",
                    "scattered data " + t.key + " was lost with its worker and cannot be recomputed"));
            return;
        }
        setStatus(t, TaskStatus.WAITING);
        ErrorInfo failed = null;
        for (TaskState d : t.deps) {
            d.waiters++;
            if (d.status == TaskStatus.RELEASED) {
                cascade(() -> compute(d));   // a released input that errs at once errs t through its dependents
            }
            if (d.status == TaskStatus.ERRED && failed == null) {
                failed = d.error;
            }
        }
        if (t.status != TaskStatus.WAITING) {
            return;   // an input erred at once and its cascade erred t already
        }
        if (failed != null) {
            erred(t, failed);
            return;
        }
        requeue(t);
    }

    /** Recounts a waiting task's missing inputs; queues it if it has none. */
    void requeue(TaskState t) {
        int missing = 0;
        for (TaskState d : t.deps) {
            if (d.status != TaskStatus.MEMORY) {
                missing++;
            }
        }
        t.waitingOn = missing;
        if (missing == 0 && !t.queued) {
            t.queued = true;
            ready.add(t);
        }
    }

    void finished(WorkerState w, TaskState t, long nbytes) {
        w.processing.remove(t);
        w.tasksCompleted++;
        t.processingOn = null;
        t.nbytes = Math.max(0, nbytes);
        setStatus(t, TaskStatus.MEMORY);
        addHolder(t, w);
        completed++;
        t.group.completed++;
        t.forEachWanter(c -> notifyInMemory(c, t));
        for (TaskState d : t.dependents()) {
            if (d.status == TaskStatus.WAITING && --d.waitingOn == 0 && !d.queued) {
                d.queued = true;
                ready.add(d);
            }
        }
        unneedInputs(t);
        maybeRelease(t);
    }

    void addHolder(TaskState t, WorkerState w) {
        if (t.holders == null) {
            t.holders = new ArrayList<>(1);
        }
        if (!t.holders.contains(w)) {
            t.holders.add(w);
            w.has.add(t);
            w.nbytes += t.nbytes;
            w.uncountedCopies.remove(t);
        }
    }

    void notifyInMemory(ClientState c, TaskState t) {
        WorkerState holder = t.holders.getFirst();
        c.sink.add(t.key, t.nbytes, holder.addressFor(c.scheme));
    }

    void notifyErred(ClientState c, TaskState t) {
        Map<String, Object> f = t.error.toFields();
        f.put("key", t.key);
        c.sink.send(Message.of(Ops.TASK_ERRED, f));
    }

    private void unneedInputs(TaskState t) {
        for (TaskState d : t.deps) {
            d.waiters--;
            cascade(() -> maybeRelease(d));
        }
    }

    void erred(TaskState t, ErrorInfo error) {
        boolean neededInputs = TaskState.needsInputs(t.status);
        if (t.status == TaskStatus.PROCESSING) {
            cancelOnWorker(t);
        }
        setStatus(t, TaskStatus.ERRED);
        t.error = error;
        erred++;
        t.forEachWanter(c -> notifyErred(c, t));
        for (TaskState d : t.dependents()) {
            if (TaskState.needsInputs(d.status)) {
                cascade(() -> {
                    if (TaskState.needsInputs(d.status)) {
                        erred(d, error);
                    }
                });
            }
        }
        if (neededInputs) {
            unneedInputs(t);
        }
        maybeRelease(t);
    }

    /** Takes a processing task off its worker, telling the worker to drop it unless the worker is gone. */
    void cancelOnWorker(TaskState t) {
        WorkerState w = t.processingOn;
        if (w != null) {
            w.processing.remove(t);
            t.processingOn = null;
            if (w.alive) {
                w.sink.free(t.key);
            }
        }
    }

    /** The last copy of {@code t}'s data is gone: recompute it if anyone still needs it. */
    void lost(TaskState t) {
        if (t.status != TaskStatus.MEMORY) {
            return;
        }
        setStatus(t, TaskStatus.RELEASED);
        t.holders = null;
        t.forEachWanter(c -> c.sink.send(Message.of(Ops.KEY_LOST, Map.of("key", t.key))));
        for (TaskState d : t.dependents()) {
            if (d.status == TaskStatus.WAITING) {
                d.waitingOn++;
            } else if (d.status == TaskStatus.PROCESSING) {
                cancelOnWorker(d);
                setStatus(d, TaskStatus.WAITING);
                requeue(d);
            }
        }
        if (t.needed()) {
            compute(t);
        } else {
            maybeRelease(t);
        }
    }

    /** Releases (frees data, or cancels) a task no client and no waiting dependent needs; forgets it if nothing refers to it. */
    void maybeRelease(TaskState t) {
        if (t.needed() || t.status == TaskStatus.FORGOTTEN) {
            return;
        }
        switch (t.status) {
            case MEMORY -> {
                for (WorkerState w : t.holders) {
                    w.has.remove(t);
                    w.nbytes -= t.nbytes;
                    if (w.alive) {
                        w.sink.free(t.key);
                    }
                }
                t.holders = null;
                setStatus(t, TaskStatus.RELEASED);
            }
            case PROCESSING -> {
                cancelOnWorker(t);
                setStatus(t, TaskStatus.RELEASED);
                unneedInputs(t);
            }
            case WAITING -> {
                setStatus(t, TaskStatus.RELEASED);
                unneedInputs(t);
            }
            case RELEASED, ERRED, FORGOTTEN -> {
            }
        }
        if (t.liveDependents == 0 && t.status != TaskStatus.FORGOTTEN) {
            forget(t);
        }
    }

    private void forget(TaskState t) {
        setStatus(t, TaskStatus.FORGOTTEN);
        tasks.remove(t.key);
        t.args = null;
        if (t.fnId != null) {
            functions.taskForgotten(t.fnId);
        }
        for (TaskState d : t.deps) {
            d.liveDependents--;
            cascade(() -> maybeRelease(d));
        }
    }

    /**
     * Runs {@code step} after the step under way (at once if none is): the outermost call drains the work list, so
     * cascades iterate instead of recursing and every transition has finished by the time that call returns.
     */
    private void cascade(Runnable step) {
        cascade.add(step);
        if (cascading) {
            return;
        }
        cascading = true;
        try {
            Runnable next;
            while ((next = cascade.poll()) != null) {
                next.run();
            }
        } finally {
            cascading = false;
            cascade.clear();   // after a failed step: what it left must not run in a later, unrelated call
        }
    }

    /** A worker died: its running tasks go back to waiting (erred after too many deaths) and its data is lost. */
    void workerLost(WorkerState w) {
        w.alive = false;
        workers.remove(w.id);
        List<TaskState> running = w.processing.drain();
        for (TaskState t : running) {
            t.processingOn = null;
            t.suspicious++;
            if (t.suspicious > allowedFailures) {
                erred(t, ErrorInfo.simple(t.key, "io.dask4j.runtime.KilledWorkerException",
                        "task " + t.key + " was running on " + t.suspicious + " workers that died; the last was " + w.id));
            } else {
                setStatus(t, TaskStatus.WAITING);
                requeue(t);
            }
        }
        for (TaskState t : new ArrayList<>(w.has)) {
            t.holders.remove(w);
            w.has.remove(t);
            if (t.holders.isEmpty() && t.status == TaskStatus.MEMORY) {
                lost(t);
            }
        }
        assignReady();
    }

    /** Places every ready task on a worker; without workers they stay queued until one registers. */
    void assignReady() {
        if (workers.isEmpty() || ready.isEmpty()) {
            return;
        }
        Placement placement = new Placement(workers.values(), ready.size());
        TaskState t;
        while ((t = ready.poll()) != null) {
            t.queued = false;
            if (t.status != TaskStatus.WAITING || t.waitingOn != 0) {
                continue;
            }
            assign(t, placement.choose(t));
        }
    }

    private void assign(TaskState t, WorkerState w) {
        setStatus(t, TaskStatus.PROCESSING);
        t.processingOn = w;
        t.runId++;
        w.processing.add(t);
        Map<String, Object> whoHas = null;
        if (t.deps.length > 0) {
            String scheme = w.id.substring(0, Math.max(0, w.id.indexOf(':')));
            whoHas = new HashMap<>(t.deps.length * 2);
            for (TaskState d : t.deps) {
                List<Object> where = new ArrayList<>(d.holders.size());
                for (WorkerState h : d.holders) {
                    where.add(h.addressFor(scheme));
                }
                whoHas.put(d.key, where);
            }
        }
        byte[] fnBytes = functions.bytesUnlessHeldBy(w, t.fnId);
        w.sink.add(t.key, (long) t.runId, t.fnId, t.args, t.priority, whoHas, fnBytes);
    }
}
