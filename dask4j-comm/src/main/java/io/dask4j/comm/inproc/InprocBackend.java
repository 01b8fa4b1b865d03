package io.dask4j.comm.inproc;

import io.dask4j.comm.Address;
import io.dask4j.comm.Backend;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.Connector;
import io.dask4j.comm.Listener;
import java.util.function.Consumer;

/**
 * The {@code inproc://} backend: comms between threads of one JVM, through in-memory queues.
 *
 * <p><b>Addresses.</b> {@code inproc://<name>}, any name without whitespace. Listening on a name that
 * ends with {@code *} picks a fresh unique name by replacing the star with a process-wide counter:
 * {@code inproc://*} becomes {@code inproc://auto-7}, {@code inproc://worker-*} becomes {@code
 * inproc://worker-8}; {@link Listener#listenAddress()} tells which. (An empty {@code inproc://} is not a
 * valid {@link Address}, hence the star.) Listening on a name already in use fails with a {@link
 * io.dask4j.comm.CommException}; connecting to a name nobody listens on is a transient {@link
 * io.dask4j.comm.CommClosedException}, retried by {@link io.dask4j.comm.Comms#connect} until its deadline.
 *
 * <p><b>Zero copy.</b> A written {@link io.dask4j.comm.Message} object itself is handed to the reader:
 * no encoding, no copy of frames. So the reader sees the very memory the writer's frames wrap, and the
 * writer must not modify that memory after {@code write} (unlike tcp, where frames may be reused once
 * {@code write} returns). Thread-safe.
 */
public final class InprocBackend implements Backend {

    public static final String SCHEME = "inproc";
    private static final Connector CONNECTOR = InprocBackend::connectTo;

    @Override
    public String scheme() {
        return SCHEME;
    }

    @Override
    public Connector connector() {
        return CONNECTOR;
    }

    @Override
    public Listener listener(Address address, CommOptions options, Consumer<Comm> onAccept) {
        if (!address.scheme().equals(SCHEME)) {
            throw new IllegalArgumentException("not an inproc address: " + address);
        }
        return new InprocListener(address, onAccept);
    }

    private static Comm connectTo(Address address, java.time.Duration timeout, CommOptions options) {
        return InprocListener.connect(address);
    }
}
