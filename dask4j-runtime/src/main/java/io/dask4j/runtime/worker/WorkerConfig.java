package io.dask4j.runtime.worker;

import io.dask4j.comm.Address;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.serialize.ClassAllowList;
import io.dask4j.runtime.loop.IdleOptions;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * How a {@link Worker} connects, listens and runs. Immutable; build variants with {@code with*}.
 *
 * @param scheduler the scheduler's address
 * @param listenAddresses where peers and clients reach this worker; empty means one address of the
 *     scheduler's scheme ({@code tcp://127.0.0.1:0} or a fresh {@code inproc://} name). The first is the
 *     worker's id. An MPI launcher passes {@code mpi://<rank>} (and {@code tcp://...} for outside clients).
 * @param nthreads task threads
 * @param memoryLimit bytes; 0 for no limit (no spilling)
 * @param spillFraction past this fraction of the memory limit, least recently used values go to disk
 * @param localDirectory where spill files go (a fresh sub-directory per worker); null for the temp dir
 * @param transfersPerPeer concurrent data transfers from one peer
 * @param allowedClasses the classes this worker builds from frames (task functions, arguments, values from
 *     peers and clients); {@link ClassAllowList#defaults()} unless set
 * @param onListening called with the worker's contact addresses once it listens and before it connects to the
 *     scheduler, on the thread calling {@link Worker#start}: an MPI launcher tells the other ranks where this worker
 *     listens there (a collective every rank joins before any comm needs MPI progress). If it throws, the start
 *     fails with its exception. Does nothing unless set
 * @param idle how the worker's waiting threads (its control loop, idle task threads) stay awake before they park:
 *     {@link IdleOptions#defaults()} (which reads {@code dask4j.idle.driveMicros}) unless set
 */
public record WorkerConfig(Address scheduler, List<Address> listenAddresses, int nthreads, long memoryLimit,
                           double spillFraction, Path localDirectory, String name, CommOptions options,
                           int transfersPerPeer, ClassAllowList allowedClasses,
                           Consumer<List<Address>> onListening, IdleOptions idle) {

    public WorkerConfig {
        Objects.requireNonNull(scheduler, "scheduler");
        listenAddresses = List.copyOf(listenAddresses);
        if (nthreads < 1) {
            throw new IllegalArgumentException("nthreads must be >= 1: " + nthreads);
        }
        if (memoryLimit < 0 || spillFraction <= 0 || spillFraction > 1) {
            throw new IllegalArgumentException("bad memory limit " + memoryLimit + " or spill fraction " + spillFraction);
        }
        if (transfersPerPeer < 1) {
            throw new IllegalArgumentException("transfersPerPeer must be >= 1");
        }
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(allowedClasses, "allowedClasses");
        Objects.requireNonNull(onListening, "onListening");
        Objects.requireNonNull(idle, "idle");
    }

    public static WorkerConfig connectingTo(Address scheduler) {
        return new WorkerConfig(scheduler, List.of(), 1, 0, 0.7, null, "", CommOptions.defaults().withIdentity("worker"), 2,
                ClassAllowList.defaults(), addresses -> { }, IdleOptions.defaults());
    }

    public WorkerConfig withListenAddresses(List<Address> addresses) {
        return new WorkerConfig(scheduler, addresses, nthreads, memoryLimit, spillFraction, localDirectory, name, options, transfersPerPeer, allowedClasses, onListening, idle);
    }

    public WorkerConfig withThreads(int n) {
        return new WorkerConfig(scheduler, listenAddresses, n, memoryLimit, spillFraction, localDirectory, name, options, transfersPerPeer, allowedClasses, onListening, idle);
    }

    public WorkerConfig withMemoryLimit(long bytes) {
        return new WorkerConfig(scheduler, listenAddresses, nthreads, bytes, spillFraction, localDirectory, name, options, transfersPerPeer, allowedClasses, onListening, idle);
    }

    public WorkerConfig withSpillFraction(double fraction) {
        return new WorkerConfig(scheduler, listenAddresses, nthreads, memoryLimit, fraction, localDirectory, name, options, transfersPerPeer, allowedClasses, onListening, idle);
    }

    public WorkerConfig withLocalDirectory(Path dir) {
        return new WorkerConfig(scheduler, listenAddresses, nthreads, memoryLimit, spillFraction, dir, name, options, transfersPerPeer, allowedClasses, onListening, idle);
    }

    public WorkerConfig withName(String newName) {
        return new WorkerConfig(scheduler, listenAddresses, nthreads, memoryLimit, spillFraction, localDirectory, newName, options, transfersPerPeer, allowedClasses, onListening, idle);
    }

    public WorkerConfig withOptions(CommOptions newOptions) {
        return new WorkerConfig(scheduler, listenAddresses, nthreads, memoryLimit, spillFraction, localDirectory, name, newOptions, transfersPerPeer, allowedClasses, onListening, idle);
    }

    public WorkerConfig withAllowedClasses(ClassAllowList allowed) {
        return new WorkerConfig(scheduler, listenAddresses, nthreads, memoryLimit, spillFraction, localDirectory, name, options, transfersPerPeer, allowed, onListening, idle);
    }

    public WorkerConfig withTransfersPerPeer(int n) {
        return new WorkerConfig(scheduler, listenAddresses, nthreads, memoryLimit, spillFraction, localDirectory, name, options, n, allowedClasses, onListening, idle);
    }

    /** See {@code onListening}: {@code hook} learns the worker's contact addresses before it registers. */
    public WorkerConfig withOnListening(Consumer<List<Address>> hook) {
        return new WorkerConfig(scheduler, listenAddresses, nthreads, memoryLimit, spillFraction, localDirectory, name, options, transfersPerPeer, allowedClasses, hook, idle);
    }

    /** How the worker's waiting threads (its control loop, idle task threads) wait; see {@link IdleOptions}. */
    public WorkerConfig withIdle(IdleOptions waiting) {
        return new WorkerConfig(scheduler, listenAddresses, nthreads, memoryLimit, spillFraction, localDirectory, name,
                options, transfersPerPeer, allowedClasses, onListening, waiting);
    }
}
