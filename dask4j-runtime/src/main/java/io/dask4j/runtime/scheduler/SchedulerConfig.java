package io.dask4j.runtime.scheduler;

import io.dask4j.comm.Address;
import io.dask4j.comm.CommOptions;

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
 */
public record SchedulerConfig(List<Address> listenAddresses, CommOptions options, int allowedFailures,
                              Duration heartbeatTimeout, Duration batchInterval, long unusedFunctionBytes) {
    public static final long DEFAULT_UNUSED_FUNCTION_BYTES = 8L << 20;

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
    }

    /** Listens on {@code addresses} with default comm options and Dask's defaults for the rest. */
    public static SchedulerConfig listeningOn(Address... addresses) {
        return new SchedulerConfig(List.of(addresses), CommOptions.defaults().withIdentity("scheduler"), 3,
                Duration.ofSeconds(30), Duration.ofMillis(2), DEFAULT_UNUSED_FUNCTION_BYTES);
    }

    public SchedulerConfig withOptions(CommOptions newOptions) {
        return new SchedulerConfig(listenAddresses, newOptions, allowedFailures, heartbeatTimeout, batchInterval,
                unusedFunctionBytes);
    }

    public SchedulerConfig withAllowedFailures(int n) {
        return new SchedulerConfig(listenAddresses, options, n, heartbeatTimeout, batchInterval,
                unusedFunctionBytes);
    }

    public SchedulerConfig withHeartbeatTimeout(Duration timeout) {
        return new SchedulerConfig(listenAddresses, options, allowedFailures, timeout, batchInterval,
                unusedFunctionBytes);
    }

    public SchedulerConfig withUnusedFunctionBytes(long bytes) {
        return new SchedulerConfig(listenAddresses, options, allowedFailures, heartbeatTimeout, batchInterval, bytes);
    }

    public SchedulerConfig withBatchInterval(Duration interval) {
        return new SchedulerConfig(listenAddresses, options, allowedFailures, heartbeatTimeout, interval,
                unusedFunctionBytes);
    }
}
