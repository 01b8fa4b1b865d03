package io.dask4j.mpi.it;

import io.dask4j.comm.Address;
import io.dask4j.comm.conformance.CommConformanceSuite;
import io.dask4j.mpi.MpiRuntime;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The comm conformance suite over the mpi backend. Not a surefire test (it needs MPI started by mpirun):
 * {@link ConformanceMain} runs it inside rank 0 of a 2-rank job; listeners live on rank 0 and the dead
 * address is rank 1, which never listens, so a refused connect crosses ranks.
 */
public class MpiConformanceCases extends CommConformanceSuite {
    private static final AtomicInteger NEXT_PORT = new AtomicInteger();

    @Override
    protected Address listenAddress() {
        // A fresh port per listener: one rank may listen on many mpi://<rank>:<port> addresses at once.
        return new Address("mpi", MpiRuntime.start().rank() + ":" + NEXT_PORT.incrementAndGet());
    }

    @Override
    protected Address deadAddress() {
        MpiRuntime mpi = MpiRuntime.start();
        return Address.mpi((mpi.rank() + 1) % mpi.size());
    }
}
