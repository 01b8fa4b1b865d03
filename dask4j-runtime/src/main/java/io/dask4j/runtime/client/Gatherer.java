package io.dask4j.runtime.client;

import io.dask4j.comm.serialize.SerializationException;
import io.dask4j.comm.serialize.Deserializer;
import io.dask4j.comm.Message;
import io.dask4j.comm.Comms;
import io.dask4j.runtime.loop.Awake;
import io.dask4j.runtime.loop.IdleOptions;
import io.dask4j.runtime.protocol.Codec;
import io.dask4j.runtime.protocol.ConnectionPool;
import io.dask4j.runtime.protocol.DataTransferEvent;
import io.dask4j.runtime.protocol.NullValue;
import io.dask4j.runtime.protocol.Ops;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Brings results from the workers holding them to the client: one {@code get-data} per worker for
 * many keys, several workers at once. A fetch that fails (the worker died) waits for the scheduler to
 * report the key again (recomputed elsewhere) and retries until the deadline, unless the client has lost the
 * scheduler, which would never report it: then it fails at once with a {@code CommClosedException}. Thread-safe.
 */
final class Gatherer {
    private static final int MAX_KEYS = 10_000;

    private final ConnectionPool pool;
    private final Deserializer decoder;
    private final Executor background;
    /** Throws if the client lost the scheduler, which would never report a key again. */
    private final Runnable checkConnected;
    private final IdleOptions idle;

    Gatherer(ConnectionPool pool, Executor background, Runnable checkConnected, Deserializer decoder, IdleOptions idle) {
        this.decoder = decoder;
        this.pool = pool;
        this.background = background;
        this.checkConnected = checkConnected;
        this.idle = idle;
    }

    /** Progress this process's transports want from waiting threads (MPI's engine, where MPI runs). */
    private static final io.dask4j.comm.CallerProgress PROGRESS = Comms.callerProgress();

    static void awaitDone(FutureState s, long deadlineNs) throws TimeoutException {
        awaitDone(s, deadlineNs, IdleOptions.parkAtOnce());
    }

    /**
     * Waits for {@code s} to be done, staying awake for {@code idle}'s budget before parking (driving {@link
     * Comms#callerProgress} meanwhile, where the transport needs callers).
     */
    static void awaitDone(FutureState s, long deadlineNs, IdleOptions idle) throws TimeoutException {
        while (true) {
            CompletableFuture<Void> done = s.done();
            Awake.poll(idle, done::isDone, PROGRESS);
            try {
                done.get(Math.max(0, deadlineNs - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CancellationException("interrupted while waiting for " + s.key);
            } catch (ExecutionException e) {
                throw new IllegalStateException(e);
            }
            if (s.status() != FutureStatus.LOST || s.hasValue()) {
                return;
            }
        }
    }

    List<Object> gather(List<FutureState> states, long deadlineNs) throws TimeoutException {
        Object[] results = new Object[states.size()];
        List<Integer> todo = new ArrayList<>();
        for (int i = 0; i < states.size(); i++) {
            todo.add(i);
        }
        while (!todo.isEmpty()) {
            Map<String, List<Integer>> byWorker = new LinkedHashMap<>();
            int[] versions = new int[states.size()];
            for (int i : todo) {
                FutureState s = states.get(i);
                awaitDone(s, deadlineNs, idle);
                io.dask4j.comm.stats.LatencyTrace.mark("result sees it done");
                switch (s.status()) {
                    case ERROR -> throw new RemoteTaskException(s.key, s.error());
                    case CANCELLED -> throw new CancellationException("future " + s.key + " was cancelled");
                    default -> { }
                }
                if (s.hasValue()) {
                    results[i] = s.value();
                    continue;
                }
                versions[i] = s.version();
                byWorker.computeIfAbsent(s.worker(), w -> new ArrayList<>()).add(i);
            }
            List<Integer> failed = fetchAll(states, byWorker, results);
            if (!failed.isEmpty()) {
                checkConnected.run();
                if (System.nanoTime() - deadlineNs >= 0) {
                    throw new TimeoutException("could not gather " + failed.size() + " keys before the deadline");
                }
                for (int i : failed) {
                    try {
                        states.get(i).awaitChange(versions[i], deadlineNs);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new CancellationException("interrupted");
                    }
                }
            }
            todo = failed;
        }
        List<Object> out = new ArrayList<>(results.length);
        for (Object r : results) {
            out.add(NullValue.unwrap(r));
        }
        return out;
    }

    private List<Integer> fetchAll(List<FutureState> states, Map<String, List<Integer>> byWorker, Object[] results) {
        List<CompletableFuture<List<Integer>>> calls = new ArrayList<>();
        for (Map.Entry<String, List<Integer>> e : byWorker.entrySet()) {
            List<Integer> idx = e.getValue();
            for (int from = 0; from < idx.size(); from += MAX_KEYS) {
                List<Integer> part = idx.subList(from, Math.min(idx.size(), from + MAX_KEYS));
                if (byWorker.size() == 1 && idx.size() <= MAX_KEYS) {
                    calls.add(CompletableFuture.completedFuture(fetch(e.getKey(), states, part, results)));
                } else {
                    calls.add(CompletableFuture.supplyAsync(() -> fetch(e.getKey(), states, part, results), background));
                }
            }
        }
        List<Integer> failed = new ArrayList<>();
        for (CompletableFuture<List<Integer>> c : calls) {
            try {
                failed.addAll(c.join());
            } catch (java.util.concurrent.CompletionException e) {
                throw e.getCause() instanceof RuntimeException r ? r : e;
            }
        }
        return failed;
    }

    private List<Integer> fetch(String worker, List<FutureState> states, List<Integer> idx, Object[] results) {
        List<String> keys = new ArrayList<>(idx.size());
        for (int i : idx) {
            keys.add(states.get(i).key);
        }
        List<Integer> failed = new ArrayList<>();
        DataTransferEvent event = DataTransferEvent.start();
        int moved = 0;
        long bytes = 0;
        try {
            Message reply = pool.call(worker, Message.of(Ops.GET_DATA, Map.of("keys", keys)));
            if (!reply.op().equals(Ops.DATA)) {
                return new ArrayList<>(idx);
            }
            List<Object> values = Codec.values(reply, decoder);
            moved = values.size();
            bytes = sum(reply.getList("nbytes"));
            Map<String, Object> byKey = new java.util.HashMap<>(values.size() * 2);
            List<Object> found = reply.getList("keys");
            for (int j = 0; j < found.size(); j++) {
                byKey.put(String.valueOf(found.get(j)), values.get(j));
            }
            java.util.Set<Object> later = reply.has("later") ? new java.util.HashSet<>(reply.getList("later")) : java.util.Set.of();
            List<Integer> retry = new ArrayList<>();
            for (int i : idx) {
                FutureState s = states.get(i);
                Object v = byKey.get(s.key);
                if (v == null && later.contains(s.key)) {
                    retry.add(i);
                } else if (v == null) {
                    failed.add(i);
                } else {
                    s.setValue(v);
                    results[i] = v;
                }
            }
            if (!retry.isEmpty()) {
                // The worker capped its reply by size: fetch the rest at once, not after a wait (an event of its own).
                DataTransferEvent.finish(event, DataTransferEvent.GATHER, worker, moved, bytes);
                event = null;
                failed.addAll(fetch(worker, states, retry, results));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted");
        } catch (SerializationException e) {
            // The values arrived but cannot be built here (a class this client does not allow): asking again
            // would get the same bytes until the deadline, so the caller hears it now.
            throw e;
        } catch (RuntimeException e) {
            pool.drop(worker);
            return new ArrayList<>(idx);
        } finally {
            DataTransferEvent.finish(event, DataTransferEvent.GATHER, worker, moved, bytes);
        }
        return failed;
    }

    private static long sum(List<Object> sizes) {
        long total = 0;
        for (Object n : sizes) {
            total += ((Number) n).longValue();
        }
        return total;
    }

    /**
     * Spreads {@code data} round-robin over the workers ({@code ids} and the matching client-reachable
     * {@code addresses}), then tells the scheduler through {@code toScheduler} where each key lives.
     */
    void scatter(List<String> keys, List<?> data, List<Object> ids, List<Object> addresses,
                 java.util.function.Consumer<Message> toScheduler) {
        for (int w = 0; w < ids.size(); w++) {
            List<String> ks = new ArrayList<>();
            List<Object> vs = new ArrayList<>();
            for (int i = w; i < data.size(); i += ids.size()) {
                ks.add(keys.get(i));
                vs.add(data.get(i));
            }
            if (ks.isEmpty()) {
                continue;
            }
            List<Object> sizes = put(String.valueOf(addresses.get(w)), ks, vs);
            toScheduler.accept(Message.of(Ops.UPDATE_DATA, Map.of("keys", ks, "nbytes", sizes, "worker", String.valueOf(ids.get(w)))));
        }
    }

    /** Sends values to a worker for it to hold; returns their sizes as the worker measured them. */
    List<Object> put(String worker, List<String> keys, List<Object> values) {
        List<Object> wrapped = new ArrayList<>(values.size());
        for (Object v : values) {
            wrapped.add(NullValue.wrap(v));
        }
        DataTransferEvent event = DataTransferEvent.start();
        List<Object> sizes = List.of();
        try {
            Message reply = pool.call(worker, Codec.dataMessage(Ops.PUT_DATA, Map.of("keys", keys), wrapped));
            if (!reply.op().equals(Ops.OK)) {
                throw new DataRefusedException(worker, reply.has("type") ? reply.getString("type") : "",
                        reply.has("class") ? reply.getString("class") : null,
                        reply.has("message") ? reply.getString("message") : String.valueOf(reply.fields()));
            }
            sizes = reply.getList("nbytes");
            return sizes;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted");
        } finally {
            // A refused or failed put moved nothing the worker kept: it records no keys and no bytes.
            DataTransferEvent.finish(event, DataTransferEvent.SCATTER, worker, sizes.size(), sum(sizes));
        }
    }
}
