package io.dask4j.mpi.engine;

import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Work queued for the engine's passes: {@link Outbound}s submitted to go at the next pass (stamped, so the gauges
 * show how long they waited), and lazy ones that wait for whichever pass comes next without waking the engine.
 * {@link #add}, {@link #addLazily}, {@link #isEmpty} and {@link #size} from any thread; {@link #postAll} only
 * while driving the engine.
 */
final class Outbox {

    private final ConcurrentLinkedQueue<Queued> queue = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Outbound> lazy = new ConcurrentLinkedQueue<>();

    void add(Outbound work) {
        queue.add(new Queued(work, System.nanoTime()));
    }

    void addLazily(Outbound work) {
        lazy.add(work);
    }

    boolean isEmpty() {
        return queue.isEmpty();
    }

    int size() {
        return queue.size();
    }

    /** Posts every queued send in order, then the lazy ones; returns how many queued ones (lazy ones are not work). */
    int postAll(ProgressEngine engine, EngineStats stats) {
        int posted = 0;
        Queued out;
        while ((out = queue.poll()) != null) {
            stats.waitedInQueue(System.nanoTime() - out.submittedAt()); // read after the poll: never before the stamp
            out.work().post(engine);
            posted++;
        }
        Outbound later;
        while ((later = lazy.poll()) != null) {
            later.post(engine); // not work: it must not keep an idle engine from its long sleeps
        }
        return posted;
    }

    /** A submitted {@link Outbound} and when it was submitted. */
    private record Queued(Outbound work, long submittedAt) {
    }
}
