package io.dask4j.runtime.client;

import java.lang.ref.Cleaner;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * A remote result: the handle {@link Client#submit} returns. It names a key on the cluster, reports
 * its {@link #status()}, and brings the value back on {@link #result()} (fetched from the worker that
 * holds it, once, then cached in this client).
 *
 * <p>While any future of a key is reachable, the cluster keeps that key's data; {@link #release()},
 * closing the client, or the garbage collector (through a {@link Cleaner}) lets it go. Thread-safe.
 *
 * <p>{@link #result()} rethrows a remote failure as {@link RemoteTaskException}; the {@link Future}
 * method {@link #get()} wraps it in an {@link ExecutionException} as that interface requires.
 * {@link #toCompletableFuture()} bridges to the JDK's composition methods.
 *
 * @param <T> the result type
 */
public final class DaskFuture<T> implements Future<T> {
    private static final Cleaner CLEANER = Cleaner.create();

    private final Client client;
    final FutureState state;
    private final Cleaner.Cleanable cleanable;
    private volatile CompletableFuture<T> completable;
    private volatile boolean released;

    DaskFuture(Client client, FutureState state) {
        this.client = client;
        this.state = state;
        this.cleanable = CLEANER.register(this, new Release(client, state));
    }

    /** Runs once per future: when released explicitly, or when the future became unreachable. */
    private record Release(Client client, FutureState state) implements Runnable {
        @Override
        public void run() {
            client.decref(state);
        }
    }

    public String key() {
        return state.key;
    }

    public FutureStatus status() {
        return state.status();
    }

    @Override
    public boolean isDone() {
        return state.status().isDone();
    }

    /** Waits for the task and returns its value; a remote failure raises {@link RemoteTaskException}. */
    public T result() {
        try {
            return result(Duration.ofDays(365));
        } catch (TimeoutException e) {
            throw new IllegalStateException(e);
        }
    }

    @SuppressWarnings("unchecked")
    public T result(Duration timeout) throws TimeoutException {
        checkNotReleased();
        return (T) client.resultOf(state, System.nanoTime() + timeout.toNanos());
    }

    /** Waits for the task; returns its failure, or null if it succeeded. */
    public Throwable exception() {
        checkNotReleased();
        try {
            client.awaitDone(state, Long.MAX_VALUE);
        } catch (TimeoutException e) {
            throw new IllegalStateException(e);
        }
        return switch (state.status()) {
            case ERROR -> new RemoteTaskException(state.key, state.error());
            case CANCELLED -> new CancellationException("future " + state.key + " was cancelled");
            default -> null;
        };
    }

    /** Cancels the task for this client (every future of this key); other clients keep theirs. */
    public boolean cancel() {
        return cancel(false);
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        if (isDone()) {
            return false;
        }
        client.cancel(state);
        return true;
    }

    @Override
    public boolean isCancelled() {
        return state.status() == FutureStatus.CANCELLED;
    }

    @Override
    public T get() throws InterruptedException, ExecutionException {
        try {
            return result();
        } catch (RemoteTaskException | CancellationException e) {
            throw wrap(e);
        }
    }

    @Override
    public T get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        try {
            return result(Duration.ofNanos(unit.toNanos(timeout)));
        } catch (RemoteTaskException | CancellationException e) {
            throw wrap(e);
        }
    }

    /**
     * The {@link Future} form of a failure: a remote one wrapped in an ExecutionException, a cancellation as is, and
     * an interrupted wait (which {@link #result()} reports as a cancellation, the interrupt flag set) as the
     * InterruptedException the interface names.
     */
    private static ExecutionException wrap(RuntimeException e) throws InterruptedException {
        if (e instanceof CancellationException c) {
            if (Thread.interrupted()) {
                InterruptedException ie = new InterruptedException(c.getMessage());
                ie.initCause(c);
                throw ie;
            }
            throw c;
        }
        return new ExecutionException(e);
    }

    /** A CompletableFuture completed with the value (fetched in the background) or the remote failure. */
    public CompletableFuture<T> toCompletableFuture() {
        checkNotReleased();
        CompletableFuture<T> cf = completable;
        if (cf == null) {
            synchronized (this) {
                cf = completable;
                if (cf == null) {
                    completable = cf = state.done().thenApplyAsync(ignored -> result(), client.background());
                }
            }
        }
        return cf;
    }

    public <U> CompletableFuture<U> thenApply(Function<? super T, ? extends U> fn) {
        return toCompletableFuture().thenApply(fn);
    }

    public CompletableFuture<T> whenComplete(BiConsumer<? super T, ? super Throwable> action) {
        return toCompletableFuture().whenComplete(action);
    }

    /** Like {@link CompletableFuture#join()}: the value, or a CompletionException wrapping the failure. */
    public T join() {
        return toCompletableFuture().join();
    }

    /**
     * Tells the cluster this handle no longer needs the data. Idempotent. Waiting on this handle afterwards
     * ({@link #result}, {@link #get}, {@link #exception}, {@link Client#gather}) is an {@link IllegalStateException}:
     * once the last handle of a key is released the cluster forgets it, and nothing would ever answer.
     */
    public void release() {
        released = true;
        cleanable.clean();
    }

    /** Throws if {@link #release()} was called on this handle. */
    void checkNotReleased() {
        if (released) {
            throw new IllegalStateException("future " + state.key + " was released; its result is no longer kept for it");
        }
    }

    @Override
    public String toString() {
        return "DaskFuture[" + state.key + " " + status().name().toLowerCase(java.util.Locale.ROOT) + "]";
    }
}
