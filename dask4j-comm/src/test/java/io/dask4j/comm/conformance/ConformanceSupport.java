package io.dask4j.comm.conformance;

import io.dask4j.comm.Address;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommClosedException;
import io.dask4j.comm.CommException;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.Comms;
import io.dask4j.comm.Listener;
import io.dask4j.comm.Message;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;

/**
 * The hooks a backend's conformance test fills in, and helpers shared by the suite's parts. Listeners
 * and comms made through the hooks are stopped and aborted after each test.
 *
 * <p>A backend must implement {@link #listenAddress()} and {@link #deadAddress()}; everything else has a
 * default going through {@link Comms}.
 */
public abstract class ConformanceSupport {

    private final List<Listener> listeners = new CopyOnWriteArrayList<>();
    private final List<Comm> comms = new CopyOnWriteArrayList<>();

    /** A fresh address to listen on, e.g. {@code tcp://127.0.0.1:0} or {@code inproc://*}. */
    protected abstract Address listenAddress();

    /** An address nobody listens on, where a connect fails transiently (refused, no such listener). */
    protected abstract Address deadAddress();

    /** Options for both ends; no secret, generous timeouts (tests narrow them where they test them). */
    protected CommOptions options() {
        return CommOptions.fromEnvironment(Map.of()).withIdentity("conformance")
                .withConnectTimeout(Duration.ofSeconds(10)).withHandshakeTimeout(Duration.ofSeconds(10));
    }

    /** The largest frame the suite sends; 64 MiB as the issue asks. */
    protected long largeFrameBytes() {
        return 64L << 20;
    }

    protected Listener listen(Address address, CommOptions options, Consumer<Comm> handler) {
        return listen(address, options, handler, failure -> { });
    }

    protected Listener listen(Address address, CommOptions options, Consumer<Comm> handler,
                              Consumer<CommException> onHandshakeFailure) {
        return track(Comms.listen(address, options, handler, onHandshakeFailure));
    }

    protected Comm connect(Address address, CommOptions options) {
        return track(Comms.connect(address, options));
    }

    /** A raw, not handshaken comm: what an attacker or a broken peer would hold. */
    protected Comm connectRaw(Address address, CommOptions options) {
        return track(Comms.backend(address.scheme()).connector().connect(address, options.connectTimeout(), options));
    }

    /** An address that was just bound and released, so that listening on it again works. */
    protected Address reusableAddress() {
        Listener probe = Comms.listen(listenAddress(), options(), Comm::abort);
        Address address = probe.listenAddress();
        probe.stop();
        return address;
    }

    protected final Listener echoListener(CommOptions options) {
        return listen(listenAddress(), options, echo());
    }

    /** Writes every message back, then releases it (the intended relay pattern), until the comm closes. */
    protected final Consumer<Comm> echo() {
        return comm -> {
            track(comm);
            try {
                while (true) {
                    Message m = comm.read();
                    comm.write(m);
                    m.release();
                }
            } catch (CommClosedException expected) {
                comm.abort();
            }
        };
    }

    protected final <T> T take(BlockingQueue<T> queue) throws InterruptedException {
        T item = queue.poll(20, TimeUnit.SECONDS);
        if (item == null) {
            throw new AssertionError("nothing arrived within 20 s");
        }
        return item;
    }

    protected static Executor virtualThreads() {
        return r -> Thread.ofVirtual().start(r);
    }

    protected final Listener track(Listener listener) {
        listeners.add(listener);
        return listener;
    }

    protected final Comm track(Comm comm) {
        comms.add(comm);
        return comm;
    }

    @AfterEach
    void releaseEverything() {
        for (Listener l : listeners) {
            l.stop();
        }
        for (Comm c : comms) {
            c.abort();
        }
        listeners.clear();
        comms.clear();
    }
}
