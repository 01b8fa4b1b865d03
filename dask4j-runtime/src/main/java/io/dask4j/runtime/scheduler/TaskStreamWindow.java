package io.dask4j.runtime.scheduler;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The task-stream events published for dashboards: the scheduler's loop appends a sample of the new
 * events with each view it publishes, and HTTP threads read the latest ones. Holds at most {@link
 * #CAPACITY} events, so a page that opens or polls gets a bounded answer. Thread-safe (one short lock,
 * taken a few times per second).
 */
final class TaskStreamWindow {
    static final int CAPACITY = 5_000;

    private final ArrayDeque<TaskStreamEvent> events = new ArrayDeque<>();

    synchronized void append(List<TaskStreamEvent> fresh) {
        for (TaskStreamEvent e : fresh) {
            events.addLast(e);
            if (events.size() > CAPACITY) {
                events.removeFirst();
            }
        }
    }

    /** The latest events with {@code seq > after}, at most {@code max}, oldest first. */
    synchronized List<TaskStreamEvent> after(long after, int max) {
        List<TaskStreamEvent> out = new ArrayList<>();
        for (Iterator<TaskStreamEvent> it = events.descendingIterator(); it.hasNext() && out.size() < max; ) {
            TaskStreamEvent e = it.next();
            if (e.seq() <= after) {
                break;
            }
            out.add(e);
        }
        return out.reversed();
    }
}
