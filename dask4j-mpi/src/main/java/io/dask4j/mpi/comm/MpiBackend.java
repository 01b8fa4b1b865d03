package io.dask4j.mpi.comm;

import io.dask4j.comm.Address;
import io.dask4j.comm.Backend;
import io.dask4j.comm.CallerProgress;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.Connector;
import io.dask4j.comm.FatalCommClosedException;
import io.dask4j.comm.Listener;
import io.dask4j.mpi.MpiRuntime;
import io.dask4j.mpi.binding.MpiException;

import java.util.function.Consumer;

/**
 * The {@code mpi} comm backend: addresses {@code mpi://<rank>} within the job's communicator (see {@link
 * MpiTransport} for the scheme). Found by {@link java.util.ServiceLoader}; MPI is started lazily, at the
 * first connect or listen, with {@link MpiRuntime#start()} (a launcher may start it earlier with its own
 * options). Thread-safe.
 */
public final class MpiBackend implements Backend {

    @Override
    public String scheme() {
        return "mpi";
    }

    @Override
    public Connector connector() {
        return (address, timeout, options) -> transport().connect(address, timeout, options);
    }

    @Override
    public Listener listener(Address address, CommOptions options, Consumer<Comm> onAccept) {
        return transport().listener(address, options, onAccept);
    }

    /**
     * The running MPI engine's {@link ProgressEngine#drivingSpell}; nothing to drive in a process without MPI, or
     * whose comms all go over another backend (an MPI job with {@code --protocol tcp}: waiting threads would only
     * poll an idle engine).
     */
    @Override
    public CallerProgress callerProgress() {
        return () -> {
            MpiRuntime running = MpiRuntime.current();
            return running == null || !running.transport().hasComms() ? CallerProgress.Driving.IDLE
                    : running.engine().drivingSpell();
        };
    }

    private static MpiTransport transport() {
        try {
            return MpiRuntime.start().transport();
        } catch (MpiException e) {
            throw new FatalCommClosedException("MPI is not available: " + e.getMessage(), e);
        }
    }
}
