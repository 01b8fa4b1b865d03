package io.dask4j.mpi.comm;

import io.dask4j.comm.Address;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.Listener;

import java.util.function.Consumer;

/**
 * Accepts mpi comms addressed to this rank (and listener port). While started, a CONNECT from any rank
 * gets an ACCEPT and a new raw comm handed to {@code onAccept} on a fresh virtual thread; once stopped,
 * connects are refused at once (REJECT), so waiting clients fail fast. Thread-safe.
 */
final class MpiListener implements Listener {

    private final MpiTransport transport;
    private final Address address;
    private final int port;
    private final CommOptions options;
    private final Consumer<Comm> onAccept;
    private volatile boolean started;

    MpiListener(MpiTransport transport, Address address, int port, CommOptions options, Consumer<Comm> onAccept) {
        this.transport = transport;
        this.address = address;
        this.port = port;
        this.options = options;
        this.onAccept = onAccept;
    }

    @Override
    public void start() {
        if (!started) {
            transport.bind(port, this);
            started = true;
        }
    }

    @Override
    public void stop() {
        if (started) {
            started = false;
            transport.unbind(port, this);
        }
    }

    @Override
    public Address listenAddress() {
        return address;
    }

    CommOptions options() {
        return options;
    }

    /** Runs on the engine's thread: hands the comm to the handler elsewhere, never blocking the engine. */
    void accepted(MpiComm comm) {
        Thread.ofVirtual().name("dask4j-mpi-accept-" + comm.id()).start(() -> onAccept.accept(comm));
    }

    @Override
    public String toString() {
        return "MpiListener[" + address + "]";
    }
}
