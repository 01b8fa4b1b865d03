package io.dask4j.runtime.scheduler;

import io.dask4j.comm.Address;
import io.dask4j.comm.CommOptions;
import io.dask4j.runtime.loop.IdleOptions;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * How a {@link Scheduler} listens and behaves. Immutable; build variants with the {@code with*} methods.
 *
 * @param listenAddresses where to listen; several at once is fine (for example {@code mpi://0} for
 *     workers plus {@code tcp://127.0.0.1:0} for outside clients). Port 0 picks a free port.
 * @param options comm options (secret, identity, timeouts) for every listener
 * @param allowedFailures how many workers may die while running a task before it is marked erred
 *     (Dask's {@code allowed-failures}, default 3)
 * @param heartbeatTimeout a worker silent for longer than this is removed
 * @param batchInterval how long the batched streams to workers and clients coalesce messages
 * @param unusedFunctionBytes serialized task functions that no task runs any more, in bytes, that the
 *     scheduler (and the workers) keep for reuse; past it the oldest are forgotten everywhere and travel
 *     again when a later task needs them (default {@value #DEFAULT_UNUSED_FUNCTION_BYTES})
 * @param maxQueuedEvents the cap on events (each a message or a batch of messages from one peer) waiting for
 *     the scheduler's event loop: past it the peer whose message came last is paused (it stops being read,
 *     so the transport's flow control makes it wait) until the queue is down to half (default {@value
 *     #DEFAULT_MAX_QUEUED_EVENTS}). Bounds the scheduler's memory under a flood of messages
 * @param idle how long the event loop's thread stays awake after its last event before it parks (default
 *     {@link IdleOptions#defaults()})
 */
public record SchedulerConfig(List<Address> listenAddresses, CommOptions options, int allowedFailures,
                              Duration heartbeatTimeout, Duration batchInterval, long unusedFunctionBytes,
                              int maxQueuedEvents, IdleOptions idle) {
    public static final long DEFAULT_UNUSED_FUNCTION_BYTES = 8L << 20;
    public static final int DEFAULT_MAX_QUEUED_EVENTS = 4096;

    public SchedulerConfig {
        listenAddresses = List.copyOf(listenAddresses);
        if (listenAddresses.isEmpty()) {
            throw new IllegalArgumentException("a scheduler needs at least one listen address");
        }
        Objects.requireNonNull(options, "options");
        if (allowedFailures < 0) {
            throw new IllegalArgumentException("allowedFailures must be >= 0: " + allowedFailures);
        }
        if (unusedFunctionBytes < 0) {
            throw new IllegalArgumentException("unusedFunctionBytes must be >= 0: " + unusedFunctionBytes);
        }
        if (maxQueuedEvents < 1) {
            throw new IllegalArgumentException("maxQueuedEvents must be >= 1: " + maxQueuedEvents);
        }
        Objects.requireNonNull(idle, "idle");
    }

    /** Listens on {@code addresses} with default comm options and Dask's defaults for the rest. */
    public static SchedulerConfig listeningOn(Address... addresses) {
        return new SchedulerConfig(List.of(addresses), CommOptions.defaults().withIdentity("scheduler"), 3,
                Duration.ofSeconds(30), Duration.ofMillis(2), DEFAULT_UNUSED_FUNCTION_BYTES, DEFAULT_MAX_QUEUED_EVENTS,
                IdleOptions.defaults());
    }

    public SchedulerConfig withOptions(CommOptions newOptions) {
        return new SchedulerConfig(listenAddresses, newOptions, allowedFailures, heartbeatTimeout, batchInterval,
                unusedFunctionBytes, maxQueuedEvents, idle);
    }

    public SchedulerConfig withAllowedFailures(int n) {
        return new SchedulerConfig(listenAddresses, options, n, heartbeatTimeout, batchInterval,
                unusedFunctionBytes, maxQueuedEvents, idle);
    }

    public SchedulerConfig withHeartbeatTimeout(Duration timeout) {
        return new SchedulerConfig(listenAddresses, options, allowedFailures, timeout, batchInterval,
                unusedFunctionBytes, maxQueuedEvents, idle);
    }

    public SchedulerConfig withUnusedFunctionBytes(long bytes) {
        return new SchedulerConfig(listenAddresses, options, allowedFailures, heartbeatTimeout, batchInterval, bytes, maxQueuedEvents, idle);
    }

    public SchedulerConfig withMaxQueuedEvents(int n) {
        return new SchedulerConfig(listenAddresses, options, allowedFailures, heartbeatTimeout, batchInterval,
                unusedFunctionBytes, n, idle);
    }

    public SchedulerConfig withIdle(IdleOptions newIdle) {
        return new SchedulerConfig(listenAddresses, options, allowedFailures, heartbeatTimeout, batchInterval,
                unusedFunctionBytes, maxQueuedEvents, newIdle);
    }

    public SchedulerConfig withBatchInterval(Duration interval) {
        return new SchedulerConfig(listenAddresses, options, allowedFailures, heartbeatTimeout, interval,
                unusedFunctionBytes, maxQueuedEvents, idle);
    }
}
