package io.dask4j.runtime.worker;

import java.util.ArrayDeque;
import java.util.PriorityQueue;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A worker's tasks that are ready to run, lowest {@link WorkerTask#priority} value first (equal priorities in
 * no given order). The scheduler sends tasks mostly in priority order, so a task whose priority is not below
 * that of the last one queued in order joins the tail of a plain deque and leaves it in O(1); only the others
 * go into a heap. Taking the smaller of the two heads gives the same order as one heap. Why not a
 * {@code PriorityBlockingQueue}: in a no-op map its sift-down on every poll, over a heap of thousands of
 * tasks, took 3-7% of the process's CPU samples (JFR, in one JVM).
 *
 * <p>Threads: any thread may {@link #add}; task threads {@link #poll} and {@link #take}. {@link #isEmpty()}
 * takes no lock (task threads check it while they spin and after every task).
 */
final class ReadyQueue {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();
    /** Nondecreasing priorities, in arrival order. Guarded by {@code lock}. */
    private final ArrayDeque<WorkerTask> inOrder = new ArrayDeque<>();
    /** Tasks whose priority was below the tail of {@code inOrder} when they came. Guarded by {@code lock}. */
    private final PriorityQueue<WorkerTask> outOfOrder = new PriorityQueue<>();
    /** Written under {@code lock}, read without it. */
    private volatile int size;

    void add(WorkerTask t) {
        lock.lock();
        try {
            WorkerTask last = inOrder.peekLast();
            if (last == null || t.priority >= last.priority) {
                inOrder.addLast(t);
            } else {
                outOfOrder.add(t);
            }
            size = size + 1;
            notEmpty.signal();
        } finally {
            lock.unlock();
        }
    }

    /** The next task, or null when none is ready. */
    WorkerTask poll() {
        if (size == 0) {
            return null;
        }
        lock.lock();
        try {
            return dequeue();
        } finally {
            lock.unlock();
        }
    }

    /** The next task, waiting for one. */
    WorkerTask take() throws InterruptedException {
        lock.lockInterruptibly();
        try {
            WorkerTask t;
            while ((t = dequeue()) == null) {
                notEmpty.await();
            }
            return t;
        } finally {
            lock.unlock();
        }
    }

    boolean isEmpty() {
        return size == 0;
    }

    private WorkerTask dequeue() {
        WorkerTask first = inOrder.peekFirst();
        WorkerTask least = outOfOrder.peek();
        WorkerTask t;
        if (first != null && (least == null || first.priority <= least.priority)) {
            t = inOrder.pollFirst();
        } else if (least != null) {
            t = outOfOrder.poll();
        } else {
            return null;
        }
        size = size - 1;
        return t;
    }
}
