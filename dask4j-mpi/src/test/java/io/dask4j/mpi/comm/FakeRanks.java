package io.dask4j.mpi.comm;

import io.dask4j.comm.Address;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.Listener;
import io.dask4j.mpi.engine.EngineOptions;
import io.dask4j.mpi.engine.ProgressEngine;
import io.dask4j.mpi.fake.FakeMpiWorld;

import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Ranks of the mpi backend in one JVM: each rank's {@link MpiTransport} and {@link ProgressEngine} over a
 * {@link FakeMpiWorld}, engine threads running. For tests of the comm, the demux and the engine without mpirun.
 */
final class FakeRanks implements AutoCloseable {

    /** Short parks and no caller-runs spinning: test threads park and are woken like virtual threads. */
    static final EngineOptions ENGINE = new EngineOptions(50, 50_000, 1_000, 200_000, 1_000_000_000L, 1_000_000,
            false, 0, EngineOptions.EAGER_BYTES, 50_000_000, 0, 5_000_000);

    final FakeMpiWorld world;
    final MpiTransport[] transports;
    final ProgressEngine[] engines;
    private final LinkedBlockingQueue<Comm> accepted = new LinkedBlockingQueue<>();
    private final Listener listener;

    FakeRanks(int size, MpiTransportOptions options, FakeMpiWorld.Options mpi) {
        world = new FakeMpiWorld(size, mpi);
        transports = new MpiTransport[size];
        engines = new ProgressEngine[size];
        for (int r = 0; r < size; r++) {
            transports[r] = new MpiTransport(r, size, options);
            engines[r] = new ProgressEngine(world.rank(r), FakeMpiWorld.COMM, ENGINE, transports[r]);
            transports[r].attach(engines[r]);
            engines[r].start();
        }
        listener = transports[0].listener(Address.mpi(0), commOptions(), accepted::add);
        listener.start();
    }

    FakeRanks(int size, MpiTransportOptions options) {
        this(size, options, FakeMpiWorld.Options.defaults());
    }

    static CommOptions commOptions() {
        return CommOptions.fromEnvironment(java.util.Map.of());
    }

    /** A comm from {@code rank} to rank 0 and rank 0's end of it, handshake limit lifted on both. */
    MpiComm[] connect(int rank) throws InterruptedException {
        MpiComm[] pair = connectUnlifted(rank);
        pair[0].liftHandshakeLimit(commOptions().maxMessageBytes());
        pair[1].liftHandshakeLimit(commOptions().maxMessageBytes());
        return pair;
    }

    /** As {@link #connect}, with both ends still limited to a handshake's message size. */
    MpiComm[] connectUnlifted(int rank) throws InterruptedException {
        MpiComm client = (MpiComm) transports[rank].connect(Address.mpi(0), Duration.ofSeconds(10), commOptions());
        MpiComm server = (MpiComm) accepted.poll(10, TimeUnit.SECONDS);
        if (server == null) {
            throw new AssertionError("no comm accepted");
        }
        return new MpiComm[] {client, server};
    }

    /** The next comm rank 0 accepts. */
    MpiComm nextAccepted() throws InterruptedException {
        return (MpiComm) accepted.poll(10, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        listener.stop();
        for (ProgressEngine engine : engines) {
            engine.close();
        }
    }
}
