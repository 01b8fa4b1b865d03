package io.dask4j.runtime.scheduler;

import java.util.ArrayList;
import java.util.List;

/**
 * The most recent finished tasks, in a fixed ring of plain arrays: recording one is a handful of array
 * stores and no allocation, cheap enough to do always. {@link #since} samples what a dashboard asks
 * for, so its answer stays small however many tasks finish. Event-loop thread only.
 */
final class TaskStreamRing {
    static final int CAPACITY = 1 << 15;
    private static final int MASK = CAPACITY - 1;

    private final String[] workers = new String[CAPACITY];
    private final TaskGroup[] groups = new TaskGroup[CAPACITY];
    private final String[] keys = new String[CAPACITY];
    private final long[] starts = new long[CAPACITY];
    private final long[] stops = new long[CAPACITY];
    /** Events ever recorded; the next event's sequence number. */
    private long next;

    void record(String worker, TaskGroup group, String key, long startMicros, long stopMicros) {
        int i = (int) (next++ & MASK);
        workers[i] = worker;
        groups[i] = group;
        keys[i] = key;
        starts[i] = startMicros;
        stops[i] = stopMicros;
    }

    long nextSeq() {
        return next;
    }

    /**
     * Events with sequence numbers {@code >= from} still in the ring, at most {@code max}: evenly sampled
     * when there are more (the page draws a representative stream, not every task).
     */
    List<TaskStreamEvent> since(long from, int max) {
        long first = Math.max(from, Math.max(0, next - CAPACITY));
        long available = next - first;
        if (available <= 0) {
            return List.of();
        }
        long step = Math.max(1, (available + max - 1) / max);
        List<TaskStreamEvent> out = new ArrayList<>((int) Math.min(max, available));
        for (long s = next - 1; s >= first && out.size() < max; s -= step) {
            int i = (int) (s & MASK);
            out.add(new TaskStreamEvent(s, workers[i], groups[i].name, keys[i], starts[i], stops[i]));
        }
        return out.reversed();
    }
}
