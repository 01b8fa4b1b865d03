package io.dask4j.runtime.client;

import io.dask4j.runtime.task.Arguments;
import io.dask4j.runtime.task.KeyRef;
import io.dask4j.runtime.task.TaskFunction;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A task graph built by hand: keys mapped to a function and its arguments, where {@link #ref(String)}
 * stands for another key's result (and {@link DaskFuture}s may appear too). Submit it whole with
 * {@link Client#compute} (bring results back) or {@link Client#persist} (keep them on the workers).
 *
 * <pre>{@code
 * TaskGraph g = new TaskGraph()
 *     .add("a", () -> 1)
 *     .add("b", (Integer x) -> x + 1, TaskGraph.ref("a"))
 *     .add("c", (Integer x, Integer y) -> x * y, TaskGraph.ref("a"), TaskGraph.ref("b"));
 * client.compute(g, "c");   // {c=2}
 * }</pre>
 *
 * <p>Tasks run in graph order: depth-first from the outputs, so that the inputs of one reduction are
 * computed together and memory stays low. Not thread-safe while being built.
 */
public final class TaskGraph {
    private final Map<String, Node> nodes = new LinkedHashMap<>();

    /** One task of the graph. */
    public record Node(String key, TaskFunction<?> fn, Object[] args) {
        public Node {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(fn, "fn");
        }
    }

    /** A reference to the result of {@code key} in this graph (or to a key already on the cluster). */
    public static KeyRef ref(String key) {
        return new KeyRef(key);
    }

    public TaskGraph add(String key, SerializableSupplier<?> fn) {
        return put(new Node(key, new Adapters.OfSupplier<>(fn), new Object[0]));
    }

    public <T, R> TaskGraph add(String key, SerializableFunction<T, R> fn, Object arg) {
        return put(new Node(key, new Adapters.OfFunction<>(fn), new Object[]{arg}));
    }

    public <T, U, R> TaskGraph add(String key, SerializableBiFunction<T, U, R> fn, Object a, Object b) {
        return put(new Node(key, new Adapters.OfBiFunction<>(fn), new Object[]{a, b}));
    }

    public TaskGraph add(String key, TaskFunction<?> fn, Object... args) {
        return put(new Node(key, fn, args.clone()));
    }

    private TaskGraph put(Node n) {
        if (nodes.putIfAbsent(n.key(), n) != null) {
            throw new IllegalArgumentException("key " + n.key() + " is already in the graph");
        }
        return this;
    }

    public Set<String> keys() {
        return Collections.unmodifiableSet(nodes.keySet());
    }

    public int size() {
        return nodes.size();
    }

    /**
     * How many of this graph's tasks computing {@code outputs} runs: the outputs and what they depend on,
     * transitively; the client sends no others. An output that is not a key of this graph (one the client
     * already holds, such as a persisted block) runs nothing.
     */
    public int sizeFor(Collection<String> outputs) {
        return inPriorityOrder(outputs.stream().filter(nodes::containsKey).toList()).size();
    }

    /** Keys of this graph that {@code key}'s arguments refer to. */
    List<String> dependencies(String key) {
        Set<String> deps = new LinkedHashSet<>();
        Arguments.visit(nodes.get(key).args(), v -> {
            if (v instanceof KeyRef r && nodes.containsKey(r.key())) {
                deps.add(r.key());
            }
        });
        return new ArrayList<>(deps);
    }

    /**
     * The tasks needed for {@code outputs}, each after its dependencies, depth-first (post-order) from
     * the outputs in turn. Iterative, so deep chains do not overflow the stack.
     *
     * @throws IllegalArgumentException if the graph has a cycle (it could never finish)
     */
    List<Node> inPriorityOrder(Collection<String> outputs) {
        List<Node> order = new ArrayList<>();
        Set<String> visited = new HashSet<>();
        for (String out : outputs) {
            if (!visited.add(out)) {
                continue;
            }
            ArrayDeque<Map.Entry<String, Iterator<String>>> stack = new ArrayDeque<>();
            Set<String> onStack = new HashSet<>();
            stack.push(Map.entry(out, dependencies(out).iterator()));
            onStack.add(out);
            while (!stack.isEmpty()) {
                Iterator<String> it = stack.peek().getValue();
                if (it.hasNext()) {
                    String dep = it.next();
                    if (onStack.contains(dep)) {
                        throw new IllegalArgumentException("the graph has a cycle through " + dep);
                    }
                    if (visited.add(dep)) {
                        stack.push(Map.entry(dep, dependencies(dep).iterator()));
                        onStack.add(dep);
                    }
                } else {
                    String done = stack.pop().getKey();
                    onStack.remove(done);
                    order.add(nodes.get(done));
                }
            }
        }
        return order;
    }
}
