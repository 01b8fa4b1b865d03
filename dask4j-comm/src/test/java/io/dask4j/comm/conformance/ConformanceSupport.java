package io.dask4j.comm.conformance;

import io.dask4j.comm.Address;
import io.dask4j.comm.Blocking;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommClosedException;
import io.dask4j.comm.CommException;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.Comms;
import io.dask4j.comm.Listener;
import io.dask4j.comm.Message;
import io.dask4j.comm.MessageHandler;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The hooks a backend's conformance test fills in, and helpers shared by the suite's parts. Listeners
 * and comms made through the hooks are stopped and aborted after each test.
 *
 * <p>A backend must implement {@link #listenAddress()} and {@link #deadAddress()}; everything else has a
 * default going through {@link Comms}.
 *
 * <p><b>Two reading modes.</b> Every test runs once per {@link ReadMode}: the suite reads through {@link #read(Comm)}
 * and serves through {@link #echo()}, which use the blocking {@link Comm#read()} or push mode ({@link
 * Comm#receive}) as the mode says, so one test body checks both. In push mode every handler also checks the
 * {@link MessageHandler} contract (no overlapping calls, nothing after onClose, onClose once), verified after
 * each test.
 */
@ParameterizedClass
@EnumSource(ReadMode.class)
public abstract class ConformanceSupport {

    /** How this run of the suite reads. */
    @Parameter
    protected ReadMode readMode;

    private final List<Listener> listeners = new CopyOnWriteArrayList<>();
    private final List<Comm> comms = new CopyOnWriteArrayList<>();
    private final Map<Comm, PushedMessages> pushed = new ConcurrentHashMap<>();

    /** A fresh address to listen on, e.g. {@code tcp://127.0.0.1:0} or {@code inproc://*}. */
    protected abstract Address listenAddress();

    /** An address nobody listens on, where a connect fails transiently (refused, no such listener). */
    protected abstract Address deadAddress();

    /**
     * Options for both ends; no secret, with the explicit opt-out so that tcp listens without one (the tests that
     * authenticate add a secret), generous timeouts (tests narrow them where they test them).
     */
    protected CommOptions options() {
        return CommOptions.fromEnvironment(Map.of()).withInsecureNoAuth(true).withIdentity("conformance")
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

    /**
     * Writes every message back, then releases it (the intended relay pattern), until the comm closes; in push mode
     * from inside the handler, on the transport's delivery thread.
     */
    protected final Consumer<Comm> echo() {
        return comm -> {
            track(comm);
            if (readMode == ReadMode.PUSH) {
                comm.receive(new MessageHandler() {
                    @Override
                    public void onMessage(Message m) {
                        comm.write(m);
                        m.release();
                    }

                    @Override
                    public void onClose(CommException cause) {
                        comm.abort();
                    }
                });
                return;
            }
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

    /**
     * The next message of {@code comm}: {@link Comm#read()}, or in push mode the next one its handler got (the first
     * call puts the comm in push mode). Throws what read() would: the onClose cause once the comm ended.
     */
    protected final Message read(Comm comm) {
        if (readMode == ReadMode.BLOCKING) {
            return comm.read();
        }
        return pushed.computeIfAbsent(comm, PushedMessages::receive).take();
    }

    /** Puts {@code comm} in push mode with a queueing handler whose contract is checked after the test. */
    protected final PushedMessages pushTo(Comm comm, BiConsumer<PushedMessages, Message> reaction) {
        PushedMessages handler = PushedMessages.receive(comm, reaction);
        pushed.put(comm, handler);
        return handler;
    }

    /**
     * How many messages of {@link #bytesPerFillingMessage()} fill every buffer between a writer and a paused reader:
     * by default more than tcp's socket buffers hold here (80 MB against at most 36 MB), than inproc queues (1,024
     * messages) and than mpi lets a writer have unread (16,384 messages).
     */
    protected int messagesThatFillAPausedPeer() {
        return 20_000;
    }

    protected int bytesPerFillingMessage() {
        return 4 << 10;
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

    /** See {@link Blocking#blockedIn}. */
    protected static <T> CompletableFuture<T> blockedIn(Callable<T> call) {
        return Blocking.blockedIn(call);
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
    void handlersKeptTheirContract() {
        for (PushedMessages handler : pushed.values()) {
            if (!handler.breaches().isEmpty()) {
                throw new AssertionError("push handler contract broken: " + handler.breaches());
            }
        }
        pushed.clear();
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
