package io.dask4j.runtime.client;

import io.dask4j.comm.CommException;
import io.dask4j.comm.serialize.SerializationException;
import io.dask4j.runtime.task.TaskFunction;

import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A {@link java.util.concurrent.ExecutorService} whose tasks run on the workers of a {@link Client}'s cluster,
 * as {@code MPIPoolExecutor} is a {@code concurrent.futures} executor over MPI: {@link Client#executor()} makes one.
 *
 * <pre>{@code
 * ExecutorService pool = client.executor();
 * Future<Integer> f = pool.submit((SerializableCallable<Integer>) () -> 6 * 7);
 * List<Future<Long>> all = pool.invokeAll(List.of(task1, task2));   // tasks: Callable & Serializable
 * pool.shutdown();                                                  // the client stays open
 * }</pre>
 *
 * <p><b>Tasks travel.</b> A task must implement {@link Serializable} and serialize (a lambda must have a
 * serializable target type: {@link SerializableCallable}, {@link SerializableRunnable}, or a cast to {@code
 * Callable<T> & Serializable}); otherwise {@code submit}, {@code execute}, {@code invokeAll} and {@code invokeAny}
 * throw {@link TaskNotSerializableException}, a {@link RejectedExecutionException}. Its result travels back.
 *
 * <p><b>Futures</b> are {@link DaskFuture}s: {@code get()} throws an {@link ExecutionException} whose cause is the
 * {@link RemoteTaskException} naming the worker-side exception; {@code cancel} drops a task the cluster has not
 * finished (a task already running on a worker runs to its end there, its result discarded). The executor keeps
 * every accepted task's future until the task is done, so a task runs even if its caller drops the future, as
 * with {@link #execute}.
 *
 * <p><b>Lifecycle</b> follows the {@code ExecutorService} contract and concerns this executor only:
 * {@link #shutdown} rejects new tasks and lets accepted ones finish, {@link #shutdownNow} also cancels those not
 * done, {@link #awaitTermination} waits until all are done after a shutdown. None closes the client, and other
 * executors of the same client go on. Closing the client fails the tasks not done, which terminates the executor.
 *
 * <p>Thread-safe: any thread may call any method.
 */
public final class ClusterExecutor implements ExecutorService {
    /** The wait of the untimed forms, as {@link Client#gather} waits. */
    private static final Duration FOREVER = Duration.ofDays(365);

    private final Client client;
    /** Accepted tasks not yet done, with the Runnable {@link #shutdownNow} returns for each. */
    private final Map<DaskFuture<?>, Runnable> unfinished = new ConcurrentHashMap<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition terminated = lock.newCondition();
    /** Guarded by {@link #lock}. */
    private boolean shutdown;
    /** Tasks accepted and not yet done, counted from before their submission; guarded by {@link #lock}. */
    private int running;

    ClusterExecutor(Client client) {
        this.client = client;
    }

    // ---- submitting -----------------------------------------------------------------------------

    /** {@link #submit(Callable)} for lambdas: makes {@code pool.submit(() -> 42)} compile to a serializable task. */
    public <T> DaskFuture<T> submit(SerializableCallable<T> task) {
        return submit((Callable<T>) task);
    }

    @Override
    public <T> DaskFuture<T> submit(Callable<T> task) {
        Objects.requireNonNull(task, "task");
        return accept(task, new Adapters.OfCallable<>(task), new FutureTask<>(task));
    }

    /** {@link #submit(Runnable)} for lambdas: makes {@code pool.submit(() -> work())} compile to a serializable task. */
    public DaskFuture<?> submit(SerializableRunnable task) {
        return submit((Runnable) task);
    }

    @Override
    public DaskFuture<?> submit(Runnable task) {
        return submit(task, null);
    }

    @Override
    public <T> DaskFuture<T> submit(Runnable task, T result) {
        Objects.requireNonNull(task, "task");
        return accept(task, new Adapters.OfRunnable<>(task, result), task);
    }

    /** Runs {@code command} on the cluster; its failure shows only in the worker's log and the dashboard. */
    @Override
    public void execute(Runnable command) {
        submit(command);
    }

    private <T> DaskFuture<T> accept(Object task, TaskFunction<T> fn, Runnable unstarted) {
        if (!(task instanceof Serializable)) {
            throw new TaskNotSerializableException(task.getClass().getName() + " is not Serializable, so it cannot travel"
                    + " to the workers; give a lambda a serializable type (SerializableCallable, SerializableRunnable)", null);
        }
        lock.lock();
        try {
            if (shutdown) {
                throw new RejectedExecutionException("executor of client " + client.id() + " is shut down");
            }
            running++;
        } finally {
            lock.unlock();
        }
        DaskFuture<T> f;
        try {
            f = client.submitOne("executor", Adapters.identity(fn), fn, new Object[0]);
        } catch (SerializationException e) {
            taskDone();
            throw new TaskNotSerializableException("task " + task.getClass().getName() + " cannot be serialized: " + e.getMessage(), e);
        } catch (IllegalStateException | CommException e) {
            taskDone();
            throw new RejectedExecutionException("client " + client.id() + " cannot take tasks: " + e.getMessage(), e);
        } catch (RuntimeException | Error e) {
            taskDone();
            throw e;
        }
        unfinished.put(f, unstarted);   // before the callback, which may run at once
        f.state.done().whenComplete((ignored, e) -> {
            if (unfinished.remove(f) != null) {
                taskDone();
            }
        });
        return f;
    }

    private void taskDone() {
        lock.lock();
        try {
            if (--running == 0 && shutdown) {
                terminated.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Submits every task, or none: a null task is found before any is sent, a rejection cancels those sent. */
    private <T> List<DaskFuture<T>> submitAll(Collection<? extends Callable<T>> tasks) {
        Objects.requireNonNull(tasks, "tasks");
        for (Callable<T> t : tasks) {
            Objects.requireNonNull(t, "a task in tasks");
        }
        List<DaskFuture<T>> futures = new ArrayList<>(tasks.size());
        try {
            for (Callable<T> t : tasks) {
                futures.add(submit(t));
            }
        } catch (RuntimeException e) {
            cancelAll(futures);
            throw e;
        }
        return futures;
    }

    private static void cancelAll(List<? extends Future<?>> futures) {
        for (Future<?> f : futures) {
            f.cancel(true);
        }
    }

    // ---- invoking -------------------------------------------------------------------------------

    @Override
    public <T> List<Future<T>> invokeAll(Collection<? extends Callable<T>> tasks) throws InterruptedException {
        return invokeAll(tasks, FOREVER.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Waits until every task is done or the time is up; then cancels those not done and returns all futures. */
    @Override
    public <T> List<Future<T>> invokeAll(Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
            throws InterruptedException {
        Objects.requireNonNull(unit, "unit");
        long deadlineNs = System.nanoTime() + unit.toNanos(timeout);
        List<DaskFuture<T>> futures = submitAll(tasks);
        try {
            for (DaskFuture<T> f : futures) {
                if (!awaitDone(f, deadlineNs)) {
                    break;
                }
            }
        } finally {
            cancelAll(futures);   // those not done: timed out, or interrupted; a no-op on the done ones
        }
        return new ArrayList<>(futures);
    }

    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> tasks) throws InterruptedException, ExecutionException {
        try {
            return invokeAny(tasks, FOREVER.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException("no task ended in " + FOREVER, e);
        }
    }

    /**
     * The result of the first task to finish without failing; the others are cancelled. If every task fails,
     * an {@link ExecutionException} with the last failure as its cause.
     */
    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
            throws InterruptedException, ExecutionException, TimeoutException {
        Objects.requireNonNull(unit, "unit");
        long deadlineNs = System.nanoTime() + unit.toNanos(timeout);
        Objects.requireNonNull(tasks, "tasks");
        if (tasks.isEmpty()) {
            throw new IllegalArgumentException("invokeAny needs at least one task");
        }
        List<DaskFuture<T>> futures = submitAll(tasks);
        BlockingQueue<DaskFuture<T>> done = new LinkedBlockingQueue<>();
        try {
            for (DaskFuture<T> f : futures) {
                f.state.done().thenRun(() -> done.add(f));
            }
            ExecutionException last = null;
            for (int ended = 0; ended < futures.size(); ended++) {
                DaskFuture<T> f = done.poll(deadlineNs - System.nanoTime(), TimeUnit.NANOSECONDS);
                if (f == null) {
                    throw new TimeoutException("no task of " + futures.size() + " finished in time");
                }
                try {
                    return f.get(Math.max(0, deadlineNs - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (ExecutionException e) {
                    last = e;
                } catch (CancellationException e) {
                    last = new ExecutionException(e);
                }
            }
            throw last;
        } finally {
            cancelAll(futures);
        }
    }

    /** Waits until {@code f} is done: false if the deadline passed first. */
    private static boolean awaitDone(DaskFuture<?> f, long deadlineNs) throws InterruptedException {
        try {
            Gatherer.awaitDone(f.state, deadlineNs);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (CancellationException e) {
            if (Thread.interrupted()) {   // the Gatherer's way to say it was interrupted
                throw new InterruptedException("interrupted while waiting for " + f.key());
            }
            throw e;
        }
    }

    // ---- lifecycle ------------------------------------------------------------------------------

    @Override
    public void shutdown() {
        lock.lock();
        try {
            shutdown = true;
            if (running == 0) {
                terminated.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Shuts down and cancels every task not done. Returns the tasks it cancelled (a {@code Callable} as a {@link
     * FutureTask} of it): a client does not learn when a worker starts a task, so some may have begun there.
     */
    @Override
    public List<Runnable> shutdownNow() {
        shutdown();
        List<Runnable> cancelled = new ArrayList<>();
        for (Map.Entry<DaskFuture<?>, Runnable> e : unfinished.entrySet()) {
            if (e.getKey().cancel(true)) {
                cancelled.add(e.getValue());
            }
        }
        return cancelled;
    }

    @Override
    public boolean isShutdown() {
        lock.lock();
        try {
            return shutdown;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean isTerminated() {
        lock.lock();
        try {
            return shutdown && running == 0;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        long leftNs = unit.toNanos(timeout);
        lock.lock();
        try {
            while (!(shutdown && running == 0)) {
                if (leftNs <= 0) {
                    return false;
                }
                leftNs = terminated.awaitNanos(leftNs);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "ClusterExecutor[client " + client.id() + (isTerminated() ? ", terminated" : isShutdown() ? ", shut down" : "") + "]";
    }
}
