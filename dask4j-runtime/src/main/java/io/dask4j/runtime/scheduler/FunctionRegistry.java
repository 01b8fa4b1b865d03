package io.dask4j.runtime.scheduler;

import io.dask4j.comm.Message;
import io.dask4j.runtime.protocol.Ops;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The serialized task functions the scheduler holds: those a task runs, and a budget of recently unused
 * ones, so that a client submitting the same lambda again and again does not ship it each time.
 *
 * <p>A client sends a function's bytes once and from then on only its id, so the scheduler cannot simply
 * drop a function: past the budget it asks the clients that sent the oldest unused ones to forget them
 * ({@code forget-functions}), and drops each when all have answered ({@code functions-forgotten}) and still
 * no task runs it; the workers that hold it are then told to drop theirs ({@code free-functions}). Each
 * peer's messages arrive in the order it sent them, so an answer means that client names the function only
 * with its bytes from then on. Without this, a lambda capturing a different value per task would grow the
 * scheduler's and the workers' memory for the cluster's life. A client that never answers (one stuck, or
 * one that does not know the request) keeps its functions here until it disconnects.
 *
 * <p>Event-loop thread only, like the rest of the state machine.
 */
final class FunctionRegistry {
    private static final class Entry {
        final String id;
        final byte[] bytes;
        /** Tasks not yet forgotten that run this function. */
        int tasks;
        /** Clients that may name it without its bytes: those that sent it and have not answered a forget. */
        final Set<ClientState> clients = new HashSet<>(2);
        /** Workers it was sent to: they hold it until told to free it (or until they die). */
        final Set<WorkerState> workers = new HashSet<>(4);

        Entry(String id, byte[] bytes) {
            this.id = id;
            this.bytes = bytes;
        }
    }

    private final Map<String, Entry> byId = new HashMap<>();
    /** Functions no task runs, oldest first, not yet evicted: kept within the budget for reuse. */
    private final LinkedHashMap<String, Entry> unused = new LinkedHashMap<>();
    private long unusedBytes;
    private final long unusedBudget;

    /** @param unusedBudget bytes of functions no task runs kept for reuse before their clients are asked to forget them */
    FunctionRegistry(long unusedBudget) {
        this.unusedBudget = unusedBudget;
    }

    /** {@code c} sent the bytes of {@code id} (again, if it had forgotten them). */
    void received(ClientState c, String id, byte[] bytes) {
        Entry e = byId.computeIfAbsent(id, k -> new Entry(k, bytes));
        e.clients.add(c);
        if (e.tasks == 0) {
            markUnused(e);   // until the tasks of the same message count it
        }
    }

    boolean knows(String id) {
        return byId.containsKey(id);
    }

    /** The bytes of a known function if {@code w} does not hold it yet (it will), else null. */
    byte[] bytesUnlessHeldBy(WorkerState w, String id) {
        Entry e = byId.get(id);
        return e.workers.add(w) ? e.bytes : null;
    }

    /** Functions held. */
    int size() {
        return byId.size();
    }

    void taskCreated(String id) {
        Entry e = byId.get(id);
        if (e != null && e.tasks++ == 0 && unused.remove(id) != null) {
            unusedBytes -= e.bytes.length;
        }
    }

    void taskForgotten(String id) {
        Entry e = byId.get(id);
        if (e != null && --e.tasks == 0) {
            markUnused(e);
        }
    }

    private void markUnused(Entry e) {
        if (unused.putIfAbsent(e.id, e) == null) {
            unusedBytes += e.bytes.length;
        }
    }

    /** {@code c} answered {@code forget-functions}: it will send these functions' bytes if it needs them again. */
    void forgotten(ClientState c, Collection<String> ids) {
        Map<WorkerState, List<Object>> toFree = new LinkedHashMap<>();
        for (String id : ids) {
            Entry e = byId.get(id);
            if (e != null && e.clients.remove(c)) {
                dropIfUnneeded(e, toFree);
            }
        }
        tellWorkers(toFree);
    }

    /** {@code c} is gone: it names nothing any more. */
    void clientGone(ClientState c) {
        Map<WorkerState, List<Object>> toFree = new LinkedHashMap<>();
        for (Entry e : new ArrayList<>(byId.values())) {
            if (e.clients.remove(c)) {
                dropIfUnneeded(e, toFree);
            }
        }
        tellWorkers(toFree);
    }

    /**
     * Past the budget, asks the clients of the oldest unused functions to forget them, and drops those no
     * client may still name; call after each batch of messages, before the outboxes are flushed.
     */
    void sweep() {
        if (unusedBytes <= unusedBudget) {
            return;
        }
        Map<ClientState, List<Object>> toAsk = new LinkedHashMap<>();
        Map<WorkerState, List<Object>> toFree = new LinkedHashMap<>();
        Iterator<Entry> oldest = unused.values().iterator();
        while (unusedBytes > unusedBudget && oldest.hasNext()) {
            Entry e = oldest.next();
            oldest.remove();
            unusedBytes -= e.bytes.length;
            for (ClientState c : e.clients) {
                toAsk.computeIfAbsent(c, k -> new ArrayList<>()).add(e.id);
            }
            dropIfUnneeded(e, toFree);
        }
        toAsk.forEach((c, ids) -> c.sink.send(Message.of(Ops.FORGET_FUNCTIONS, Map.of("ids", ids))));
        tellWorkers(toFree);
    }

    /** Drops a function no task runs and no client may name without its bytes. */
    private void dropIfUnneeded(Entry e, Map<WorkerState, List<Object>> toFree) {
        if (e.tasks > 0 || !e.clients.isEmpty()) {
            return;
        }
        byId.remove(e.id);
        if (unused.remove(e.id) != null) {
            unusedBytes -= e.bytes.length;
        }
        for (WorkerState w : e.workers) {
            if (w.alive) {
                toFree.computeIfAbsent(w, k -> new ArrayList<>()).add(e.id);
            }
        }
    }

    private static void tellWorkers(Map<WorkerState, List<Object>> toFree) {
        // Sent in order with the worker's computes: a later task naming the function carries its bytes again.
        toFree.forEach((w, ids) -> w.sink.send(Message.of(Ops.FREE_FUNCTIONS, Map.of("ids", ids))));
    }
}
