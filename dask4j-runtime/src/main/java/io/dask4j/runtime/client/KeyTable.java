package io.dask4j.runtime.client;

import io.dask4j.comm.Message;
import io.dask4j.runtime.protocol.ColumnBatch;
import io.dask4j.runtime.protocol.ErrorInfo;
import io.dask4j.runtime.protocol.Ops;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The keys a client holds futures for: one {@link FutureState} per key with a count of live futures,
 * updated from the scheduler's stream, and the released keys waiting to be told to the scheduler
 * (coalesced into one {@code release-keys} message). Thread-safe.
 */
final class KeyTable {
    private final Map<String, FutureState> states = new ConcurrentHashMap<>();
    /** Released keys, coalesced; the client flushes them before any other message so order is kept. */
    final ColumnBatch releases = new ColumnBatch(Ops.RELEASE_KEYS, "keys");

    /** The state of {@code key} with one more future referring to it. */
    FutureState acquire(String key) {
        FutureState[] holder = new FutureState[1];
        states.compute(key, (k, s) -> {
            FutureState st = s == null ? new FutureState(k) : s;
            st.refs.incrementAndGet();
            holder[0] = st;
            return st;
        });
        return holder[0];
    }

    /** One more future for {@code key} if this client holds it already, else null (checked and counted atomically). */
    FutureState acquireIfHeld(String key) {
        return states.computeIfPresent(key, (k, s) -> {
            s.refs.incrementAndGet();
            return s;
        });
    }

    /**
     * One future of {@code s} went away; at zero the key is dropped and queued for release. Returns true
     * when that made the release queue non-empty (the caller wakes its sender).
     */
    boolean release(FutureState s, boolean tellScheduler) {
        boolean[] first = new boolean[1];
        states.computeIfPresent(s.key, (k, cur) -> {
            if (cur != s || s.refs.decrementAndGet() > 0) {
                return cur;
            }
            if (tellScheduler) {
                first[0] = releases.add(k);
            }
            return null;
        });
        return first[0];
    }

    /** Drops {@code s} at once (cancel); true if it was held. */
    boolean remove(FutureState s) {
        return states.remove(s.key, s);
    }

    int size() {
        return states.size();
    }

    /** Applies a scheduler message about keys; false if the op is not about keys. */
    boolean onMessage(Message m) {
        switch (m.op()) {
            case Ops.KEYS_IN_MEMORY -> {
                List<Object> keys = m.getList("keys");
                List<Object> workers = m.getList("workers");
                for (int i = 0; i < keys.size(); i++) {
                    FutureState s = states.get(String.valueOf(keys.get(i)));
                    if (s != null) {
                        s.finished(String.valueOf(ColumnBatch.decoded(m, "workers", workers, i)));
                    }
                }
            }
            case Ops.TASK_ERRED -> {
                FutureState s = states.get(m.getString("key"));
                if (s != null) {
                    s.erred(ErrorInfo.from(m));
                }
            }
            case Ops.KEY_LOST -> {
                FutureState s = states.get(m.getString("key"));
                if (s != null) {
                    s.lost();
                }
            }
            default -> {
                return false;
            }
        }
        return true;
    }

    /** Fails every future still pending, so nobody waits forever on a client that cannot hear back. */
    void failPending(String why) {
        for (FutureState s : states.values()) {
            if (!s.status().isDone()) {
                s.erred(ErrorInfo.simple(s.key, "io.dask4j.runtime.client.ClientClosedException", why));
            }
        }
    }
}
