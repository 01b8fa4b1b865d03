package io.dask4j.runtime.client;

import java.util.Collection;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * Iterates over futures in the order they complete (Dask's {@code as_completed}). {@code next()}
 * blocks until another future is done. One iteration per instance; iterate from one thread.
 */
final class AsCompleted<T> implements Iterable<DaskFuture<T>> {
    private final LinkedBlockingQueue<DaskFuture<T>> done = new LinkedBlockingQueue<>();
    private final int total;

    AsCompleted(Collection<DaskFuture<T>> futures) {
        this.total = futures.size();
        for (DaskFuture<T> f : futures) {
            f.state.done().thenRun(() -> done.add(f));
        }
    }

    @Override
    public Iterator<DaskFuture<T>> iterator() {
        return new Iterator<>() {
            private int returned;

            @Override
            public boolean hasNext() {
                return returned < total;
            }

            @Override
            public DaskFuture<T> next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                try {
                    DaskFuture<T> f = done.take();
                    returned++;
                    return f;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new NoSuchElementException("interrupted while waiting for the next completed future");
                }
            }
        };
    }
}
