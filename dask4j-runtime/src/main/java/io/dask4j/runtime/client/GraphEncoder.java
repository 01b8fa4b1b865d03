package io.dask4j.runtime.client;

import java.util.Collection;

import io.dask4j.runtime.task.Arguments;
import io.dask4j.runtime.task.KeyRef;
import io.dask4j.runtime.task.TaskFunction;
import io.dask4j.comm.Message;
import io.dask4j.runtime.protocol.Codec;
import io.dask4j.runtime.protocol.Ops;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Builds {@code update-graph} messages: per task its key, function id, serialized arguments (futures
 * replaced by {@link KeyRef}s) and dependencies, in priority order. Functions travel once per client
 * (content-addressed by a hash of their bytes) until the scheduler asks the client to forget them; the
 * scheduler forwards them once per worker, so a map over 100,000 items ships its lambda once. Used by
 * one thread at a time, inside {@link FunctionTable#whileSending}.
 */
final class GraphEncoder {
    static final int MAX_TASKS_PER_MESSAGE = 10_000;

    private final FunctionTable functions;
    private final List<Object> keys = new ArrayList<>();
    private final List<Object> fns = new ArrayList<>();
    /** Function ids are dictionary-encoded: a map repeats one id for every task. */
    private final Map<String, Long> fnIndex = new HashMap<>();
    private final List<Object> fnDict = new ArrayList<>();
    private final List<Object> args = new ArrayList<>();
    private final List<Object> deps = new ArrayList<>();
    private final Map<String, Object> newFunctions = new HashMap<>();
    /** Functions whose bytes went into an earlier message of this encoder. */
    private final Set<String> shipped = new java.util.HashSet<>();
    private final List<Message> out = new ArrayList<>();

    /**
     * One client's serialized functions: the id of each function object, and which functions the scheduler
     * holds for this client. Thread-safe. A message naming a function without its bytes must reach the
     * scheduler before the client's answer to a request to forget that function, or the scheduler would have
     * dropped it: encoders therefore run inside {@link #whileSending} (any number at once) and {@link #forget}
     * waits for them.
     */
    static final class FunctionTable {
        private final Map<Object, String> ids = new java.util.WeakHashMap<>();
        private final Set<String> sent = java.util.concurrent.ConcurrentHashMap.newKeySet();
        private final java.util.concurrent.locks.ReentrantReadWriteLock sending =
                new java.util.concurrent.locks.ReentrantReadWriteLock(true);

        /** A function's id, and its bytes when they were serialized just now to compute the id. */
        private record Resolved(String id, byte[] freshBytes) {
        }

        private Resolved resolve(Object identity, TaskFunction<?> fn) {
            synchronized (ids) {
                String id = ids.get(identity);
                if (id != null) {
                    return new Resolved(id, null);
                }
            }
            byte[] bytes = Codec.toBytes(fn);
            String id = hash(bytes);
            synchronized (ids) {
                ids.put(identity, id);
            }
            return new Resolved(id, bytes);
        }

        /** Runs {@code encodeAndSend}: building messages with encoders of this table and sending them. */
        <T> T whileSending(java.util.function.Supplier<T> encodeAndSend) {
            sending.readLock().lock();
            try {
                return encodeAndSend.get();
            } finally {
                sending.readLock().unlock();
            }
        }

        /**
         * The scheduler asked to forget {@code forgotten}: waits for encoders in flight, forgets them (their
         * bytes travel again when next needed) and passes them to {@code answer}, which sends the reply.
         */
        void forget(List<String> forgotten, java.util.function.Consumer<List<String>> answer) {
            sending.writeLock().lock();
            try {
                forgotten.forEach(sent::remove);
                // Serialized afresh when next used, under the id of those bytes: state the function captured may
                // have changed since, and the id must name exactly the bytes that travel.
                Set<String> gone = Set.copyOf(forgotten);
                synchronized (ids) {
                    ids.values().removeIf(gone::contains);
                }
                answer.accept(forgotten);
            } finally {
                sending.writeLock().unlock();
            }
        }

        /** Functions the scheduler holds for this client. */
        int sentCount() {
            return sent.size();
        }

        private static String hash(byte[] bytes) {
            try {
                return "fn-" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes), 0, 12);
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private final Set<String> wants;
    private final boolean chunked;

    /**
     * @param wants keys the client will hold futures for
     * @param chunked whether tasks may be split over several messages: only for independent tasks
     *     that are all wanted (map), since a chunk's unwanted tasks would be forgotten on arrival
     */
    GraphEncoder(FunctionTable functions, Set<String> wants, boolean chunked) {
        this.functions = functions;
        this.wants = wants;
        this.chunked = chunked;
    }

    /** Adds a task; {@code identity} is the user's function object (the cache key for its bytes). */
    void add(String key, Object identity, TaskFunction<?> fn, Object[] taskArgs) {
        Set<String> found = Set.of();
        Object[] encoded = taskArgs;
        if (mayHoldReferences(taskArgs)) {
            Set<String> refs = new LinkedHashSet<>();
            found = refs;
            encoded = (Object[]) Arguments.replace(taskArgs, DaskFuture.class, f -> {
                refs.add(f.key());
                return new KeyRef(f.key());
            });
            Arguments.visit(encoded, v -> {
                if (v instanceof KeyRef r) {
                    refs.add(r.key());
                }
            });
        }
        keys.add(key);
        FunctionTable.Resolved resolved = functions.resolve(identity, fn);
        String fnId = resolved.id();
        if (!functions.sent.contains(fnId) && !shipped.contains(fnId) && !newFunctions.containsKey(fnId)) {
            newFunctions.put(fnId, resolved.freshBytes() != null ? resolved.freshBytes() : Codec.toBytes(fn));
        }
        Long index = fnIndex.get(fnId);
        if (index == null) {
            index = (long) fnDict.size();
            fnIndex.put(fnId, index);
            fnDict.add(fnId);
        }
        fns.add(index);
        args.add(Codec.toBytes(encoded));
        deps.add(found.isEmpty() ? List.of() : new ArrayList<>(found));
        if (chunked && keys.size() >= MAX_TASKS_PER_MESSAGE) {
            flush();
        }
    }

    private void flush() {
        List<Object> wanted = new ArrayList<>();
        if (chunked) {
            for (Object k : keys) {
                if (wants.contains(k)) {
                    wanted.add(k);
                }
            }
        } else {
            wanted.addAll(wants);
        }
        Map<String, Object> f = new HashMap<>();
        f.put("keys", new ArrayList<>(keys));
        f.put("fns", new ArrayList<>(fns));
        f.put("fns_dict", new ArrayList<>(fnDict));
        f.put("args", new ArrayList<>(args));
        f.put("deps", new ArrayList<>(deps));
        f.put("wants", wanted);
        if (!newFunctions.isEmpty()) {
            f.put("functions", new HashMap<>(newFunctions));
            shipped.addAll(newFunctions.keySet());
            newFunctions.clear();
        }
        out.add(Message.of(Ops.UPDATE_GRAPH, f));
        keys.clear();
        fns.clear();
        fnIndex.clear();
        fnDict.clear();
        args.clear();
        deps.clear();
    }

    /** The messages to send, in order. */
    List<Message> finish() {
        if (!keys.isEmpty() || out.isEmpty()) {
            flush();
        }
        return out;
    }

    /**
     * Sends the messages in order with {@code send}, then records their functions as held by the scheduler:
     * only after the send, so that a concurrent encoder ships the bytes too rather than naming a function
     * whose bytes are still on their way behind its own message.
     */
    void sendAll(java.util.function.Consumer<Message> send) {
        finish().forEach(send);
        functions.sent.addAll(shipped);
    }

    /** False when no argument is a future, a key reference or a container (the common, cheap case). */
    private static boolean mayHoldReferences(Object[] args) {
        for (Object a : args) {
            if (a instanceof DaskFuture<?> || a instanceof KeyRef || a instanceof Collection<?> || a instanceof Map<?, ?>
                    || a instanceof Object[]) {
                return true;
            }
        }
        return false;
    }
}
