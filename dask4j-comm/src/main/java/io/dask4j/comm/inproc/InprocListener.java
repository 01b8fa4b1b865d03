package io.dask4j.comm.inproc;

import io.dask4j.comm.Address;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommClosedException;
import io.dask4j.comm.CommException;
import io.dask4j.comm.Listener;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * An {@code inproc://} listener: a name in a process-wide registry. A connect makes a linked pair of
 * {@link InprocComm}s and hands the server end to {@code onAccept} on the connecting thread.
 * Thread-safe.
 */
final class InprocListener implements Listener {

    private static final ConcurrentMap<String, InprocListener> REGISTRY = new ConcurrentHashMap<>();
    private static final AtomicLong COUNTER = new AtomicLong();

    private final Address requested;
    private final Consumer<Comm> onAccept;
    private volatile Address bound;
    private volatile boolean stopped;

    InprocListener(Address requested, Consumer<Comm> onAccept) {
        this.requested = requested;
        this.onAccept = onAccept;
    }

    @Override
    public synchronized void start() {
        if (bound != null) {
            return;
        }
        String name = requested.location();
        if (name.endsWith("*")) {
            String prefix = name.length() == 1 ? "auto-" : name.substring(0, name.length() - 1);
            String candidate;
            do {
                candidate = prefix + COUNTER.incrementAndGet();
            } while (REGISTRY.putIfAbsent(candidate, this) != null);
            name = candidate;
        } else if (REGISTRY.putIfAbsent(name, this) != null) {
            throw new CommException("cannot listen on " + requested + ": address already in use");
        }
        bound = Address.inproc(name);
    }

    @Override
    public void stop() {
        stopped = true;
        Address address = bound;
        if (address != null) {
            REGISTRY.remove(address.location(), this);
        }
    }

    @Override
    public Address listenAddress() {
        Address address = bound;
        return address == null ? requested : address;
    }

    static Comm connect(Address address) {
        InprocListener listener = REGISTRY.get(address.location());
        if (listener == null || listener.stopped) {
            throw new CommClosedException("no inproc listener at " + address);
        }
        Address clientAddress = Address.inproc(address.location() + "/client-" + COUNTER.incrementAndGet());
        InprocComm client = new InprocComm(clientAddress, address);
        InprocComm server = new InprocComm(address, clientAddress);
        InprocComm.link(client, server);
        listener.onAccept.accept(server);
        if (listener.stopped) {
            client.abort();
            throw new CommClosedException("inproc listener at " + address + " stopped");
        }
        return client;
    }

    @Override
    public String toString() {
        return "InprocListener[" + listenAddress() + "]";
    }
}
