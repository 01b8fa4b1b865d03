package io.dask4j.array;

import io.dask4j.runtime.client.Client;
import io.dask4j.runtime.client.DaskFuture;
import io.dask4j.runtime.task.TaskFunction;
import io.dask4j.runtime.client.TaskGraph;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A materialized chunked array: one task key per block, plus the tasks that make them (block tasks
 * and any intermediates such as reduction trees) and the sources those tasks read. A persisted source
 * has no tasks: its keys are held on the workers by futures. Every source gets a fresh name, so two
 * operations never share keys and a rerun computes anew. Immutable once built; thread-safe.
 */
final class Source {
    private static final String RUN = Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffffL);
    private static final AtomicLong COUNTER = new AtomicLong();

    final String name;
    final Chunks chunks;
    final String[] keys;
    final List<TaskGraph.Node> tasks;
    final List<Source> deps;
    final Map<String, DaskFuture<Object>> futures;
    final Client client;

    private Source(String name, Chunks chunks, String[] keys, List<TaskGraph.Node> tasks, List<Source> deps,
                   Map<String, DaskFuture<Object>> futures, Client client) {
        this.name = name;
        this.chunks = chunks;
        this.keys = keys;
        this.tasks = tasks;
        this.deps = deps;
        this.futures = futures;
        this.client = client;
    }

    /** A unique name for a new operation: {@code op-<process token>-<counter>}. */
    static String newName(String op) {
        return op + "-" + RUN + "-" + COUNTER.incrementAndGet();
    }

    /** Builds a source block by block. */
    static final class Builder {
        private final String name;
        private final Chunks chunks;
        private final String[] keys;
        private final List<TaskGraph.Node> tasks = new ArrayList<>();
        private final List<Source> deps = new ArrayList<>();

        Builder(String op, Chunks chunks) {
            this.name = newName(op);
            this.chunks = chunks;
            this.keys = new String[chunks.blocks()];
        }

        String name() {
            return name;
        }

        /** The conventional key of block {@code (i, j)}: {@code name-i,j}. */
        String blockKey(int i, int j) {
            return name + "-" + i + "," + j;
        }

        /** Adds the task making block {@code b} (row-major index) under its conventional key. */
        Builder block(int b, TaskFunction<?> fn, Object... args) {
            String key = blockKey(b / chunks.blockCols(), b % chunks.blockCols());
            task(key, fn, args);
            keys[b] = key;
            return this;
        }

        /** Names an already added task's key as block {@code b} (e.g. the root of a reduction tree). */
        Builder blockIs(int b, String key) {
            keys[b] = key;
            return this;
        }

        Builder task(String key, TaskFunction<?> fn, Object... args) {
            tasks.add(new TaskGraph.Node(key, fn, args));
            return this;
        }

        Builder dependsOn(List<Source> sources) {
            for (Source s : sources) {
                if (!deps.contains(s)) {
                    deps.add(s);
                }
            }
            return this;
        }

        Source build() {
            for (int b = 0; b < keys.length; b++) {
                if (keys[b] == null) {
                    throw new IllegalStateException("block " + b + " of " + name + " has no task");
                }
            }
            return new Source(name, chunks, keys, List.copyOf(tasks), List.copyOf(deps), null, null);
        }
    }

    boolean persisted() {
        return futures != null;
    }

    /** The same blocks, now held on the workers by {@code futures} (by key). */
    Source persistedAs(Map<String, DaskFuture<Object>> held, Client by) {
        return new Source(name, chunks, keys, List.of(), List.of(), Collections.unmodifiableMap(held), by);
    }

    /** The futures of the blocks, in block order (persisted sources only). */
    List<DaskFuture<Object>> blockFutures() {
        List<DaskFuture<Object>> out = new ArrayList<>(keys.length);
        for (String k : keys) {
            out.add(futures.get(k));
        }
        return out;
    }

    /** The whole graph needed to make this source's blocks: its tasks and those of every unpersisted source below it. */
    TaskGraph graph() {
        TaskGraph g = new TaskGraph();
        for (Source s : closure(List.of(this))) {
            for (TaskGraph.Node n : s.tasks) {
                g.add(n.key(), n.fn(), n.args());
            }
        }
        return g;
    }

    private static List<Source> closure(List<Source> roots) {
        Set<Source> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        List<Source> order = new ArrayList<>();
        List<Source> stack = new ArrayList<>(roots);
        while (!stack.isEmpty()) {
            Source s = stack.removeLast();
            if (seen.add(s)) {
                order.add(s);
                stack.addAll(s.deps);
            }
        }
        return order;
    }
}
