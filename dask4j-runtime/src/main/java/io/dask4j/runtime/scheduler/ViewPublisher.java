package io.dask4j.runtime.scheduler;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Publishes {@link ClusterView}s from the scheduler's event loop while someone is looking: every {@link
 * #INTERVAL_NS} as long as a view was asked for within {@link #DEMAND_NS}, and not at all otherwise. A
 * view costs O(workers + task groups) plus a bounded sample of the task stream, never O(tasks), so the
 * loop's hot path stays as it was.
 *
 * <p>Threads: {@link #maybePublish} and {@link #publish} on the event loop only; {@link #touch} and
 * {@link #current} from any thread.
 */
final class ViewPublisher {
    static final long INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(200);
    static final long DEMAND_NS = TimeUnit.SECONDS.toNanos(10);
    /** Task-stream events sampled per published view: at 5 views/s, at most 1,000 events/s reach a page. */
    static final int STREAM_SAMPLE = 200;
    private static final long RATE_WINDOW_NS = TimeUnit.SECONDS.toNanos(5);

    private final SchedulerState state;
    private final Supplier<List<String>> addresses;
    private final long startedAtMillis = System.currentTimeMillis();
    final TaskStreamWindow window = new TaskStreamWindow();
    private final ArrayDeque<long[]> rateSamples = new ArrayDeque<>();
    private volatile ClusterView current;
    private volatile long demandNs = System.nanoTime() - 2 * DEMAND_NS;
    private long nextNs = System.nanoTime();
    private long version;
    private long streamPublished;

    ViewPublisher(SchedulerState state, Supplier<List<String>> addresses) {
        this.state = state;
        this.addresses = addresses;
    }

    /** Someone wants views: keep publishing for the next {@link #DEMAND_NS}. Any thread. */
    void touch() {
        demandNs = System.nanoTime();
    }

    /** The latest published view, or null before the first. Any thread. */
    ClusterView current() {
        return current;
    }

    /** Publishes if a view is due and wanted. Event loop only; cheap when not. */
    void maybePublish(long nowNs) {
        if (nowNs - nextNs < 0) {
            return;
        }
        nextNs = nowNs + INTERVAL_NS;
        if (nowNs - demandNs < DEMAND_NS) {
            publish(nowNs);
        }
    }

    /** Builds and publishes a view now. Event loop only. */
    ClusterView publish(long nowNs) {
        Transitions tx = state.tx;
        List<WorkerView> workers = new ArrayList<>(tx.workers.size());
        for (WorkerState w : tx.workers.values()) {
            workers.add(new WorkerView(w.id, w.name, w.addresses, w.pid, w.nthreads, w.memoryLimit, w.processing.size(),
                    w.has.size(), w.nbytes, w.tasksCompleted, (nowNs - w.lastSeenNs) / 1e9, w.metrics));
        }
        long seq = tx.stream.nextSeq();
        if (seq > streamPublished) {
            window.append(tx.stream.since(streamPublished, STREAM_SAMPLE));
            streamPublished = seq;
        }
        ClusterView v = new ClusterView(++version, System.currentTimeMillis(), startedAtMillis, addresses.get(), tx.counts(),
                tx.completed, tx.erred, state.workersLost(), rate(nowNs, tx.completed), state.clients.size(), workers,
                tx.groups.views(), seq);
        current = v;
        return v;
    }

    private double rate(long nowNs, long completed) {
        rateSamples.addLast(new long[]{nowNs, completed});
        while (rateSamples.size() > 1 && nowNs - rateSamples.peekFirst()[0] > RATE_WINDOW_NS) {
            rateSamples.removeFirst();
        }
        long[] first = rateSamples.peekFirst();
        long dtNs = nowNs - first[0];
        return dtNs <= 0 ? 0 : (completed - first[1]) * 1e9 / dtNs;
    }
}
