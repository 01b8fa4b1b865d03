package io.dask4j.comm;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The user entry point of the comm layer: connect, listen, find a backend.
 *
 * <pre>{@code
 * Listener l = Comms.listen(Address.parse("tcp://127.0.0.1:0"), options, comm -> serve(comm));
 * Comm c = Comms.connect(l.contactAddress(), options);   // retried, handshaken, authenticated
 * }</pre>
 *
 * <p>Backends ({@link Backend}) make raw comms; this class adds what every backend shares: retrying a
 * connect with jittered exponential backoff, and the handshake (protocol version, peer identity, HMAC
 * challenge-response over the shared secret in {@link CommOptions#secret()}). Comms returned here and
 * handed to listen handlers have completed the handshake and report {@link Comm#peerIdentity()}.
 *
 * <p>All methods are static and thread-safe. {@link #connect} blocks the calling thread (virtual threads
 * welcome) for at most {@code connectTimeout + handshakeTimeout}.
 */
public final class Comms {

    private static final Logger LOG = LoggerFactory.getLogger(Comms.class);
    /** First backoff cap; doubles per attempt (full jitter: the sleep is uniform in [0, cap]). */
    static final long BACKOFF_BASE_NS = 5_000_000L;
    static final long BACKOFF_MAX_NS = 1_000_000_000L;

    private Comms() {
    }

    /** Connects with {@link CommOptions#defaults()}. */
    public static Comm connect(String address) {
        return connect(Address.parse(address), CommOptions.defaults());
    }

    /**
     * Connects to {@code address} and handshakes. Transient failures (refused, reset, no listener yet)
     * are retried with jittered exponential backoff until {@code options.connectTimeout()}, then a
     * {@link ConnectTimeoutException} names the address and the last error. Fatal failures ({@link
     * FatalCommClosedException}: unknown host, bad address) are raised at once. Handshake failures are
     * not retried: {@link AuthenticationException}, {@link ProtocolException}, {@link
     * HandshakeTimeoutException}, or {@link CommClosedException} if the peer hung up mid-handshake. The address
     * dialed is {@code options.routes()}' route for {@code address} (the address itself unless routes are set).
     */
    public static Comm connect(Address address, CommOptions options) {
        Address dialed = options.routes().route(address);
        return connect(backend(dialed.scheme()), dialed, options);
    }

    /**
     * Starts a listener that hands each accepted comm to {@code handler} on its own virtual thread, only
     * after a successful handshake. A comm whose handshake fails or times out is dropped without
     * reaching the handler, and the listener keeps serving. If the handler throws, the comm is aborted.
     *
     * <p>Latency note: a blocking tcp read on a virtual thread waits in the JDK's poller, which costs a
     * few microseconds more per message than on a platform thread (measured here, 8 B one-way: ~18-30 us
     * vs ~8-12 us, noisy). A handler serving a latency-critical peer may hand the comm to a platform
     * thread of its own.
     */
    public static Listener listen(Address address, CommOptions options, Consumer<Comm> handler) {
        return listen(address, options, handler, failure -> { });
    }

    /**
     * Like {@link #listen(Address, CommOptions, Consumer)}, and also reports each failed handshake
     * (typed: {@link AuthenticationException}, {@link ProtocolException}, {@link
     * HandshakeTimeoutException}, {@link CommClosedException}) to {@code onHandshakeFailure}, called on
     * the failing comm's virtual thread.
     */
    public static Listener listen(Address address, CommOptions options, Consumer<Comm> handler,
                                  Consumer<CommException> onHandshakeFailure) {
        Backend backend = backend(address.scheme());
        checkAuthentication(backend, address, options);
        HandshakingListener listener = new HandshakingListener(backend, address, options, handler, onHandshakeFailure);
        listener.start();
        if (backend.reachableByOthers() && !options.hasSecret() && !certificatesSuffice(backend, options)) {
            LOG.warn("listening on {} WITHOUT AUTHENTICATION (insecureNoAuth): anyone who can reach this port can "
                    + "register, submit tasks, and read or overwrite data", listener.listenAddress());
        }
        return listener;
    }

    /**
     * Authenticated by default: a listener others can reach needs a secret, unless the options opt out by name.
     *
     * @throws AuthenticationException saying how to give a secret or opt out
     */
    static void checkAuthentication(Backend backend, Address address, CommOptions options) {
        if (backend.reachableByOthers() && !options.hasSecret() && !options.insecureNoAuth()
                && !certificatesSuffice(backend, options)) {
            throw new AuthenticationException("refusing to listen on " + address + " without a secret: set "
                    + CommOptions.SECRET_ENV + " (at least " + CommOptions.MIN_SECRET_BYTES + " bytes), pass "
                    + "CommOptions.withSecret or withGeneratedSecret(), or opt out explicitly with "
                    + "withInsecureNoAuth(true) (--insecure-no-auth on the command line)"
                    + (backend.scheme().equals("tls") ? "; on tls://, mutual TLS may stand in for the secret "
                    + "(TlsOptions.withMutualAuth(true).withSecretHandshake(false))" : ""));
        }
    }

    /** A tls listener whose client certificates prove membership (mutual TLS, secret handshake turned off). */
    private static boolean certificatesSuffice(Backend backend, CommOptions options) {
        return backend.scheme().equals("tls") && options.tls() != null && options.tls().provesMembership();
    }

    /**
     * The backend serving {@code scheme}, discovered with {@link ServiceLoader} (providers listed in
     * {@code META-INF/services/io.dask4j.comm.Backend}).
     *
     * @throws IllegalArgumentException naming the known schemes if none serves it
     */
    public static Backend backend(String scheme) {
        Backend backend = Registry.BACKENDS.get(scheme.toLowerCase(Locale.ROOT));
        if (backend == null) {
            throw new IllegalArgumentException("no comm backend for scheme '" + scheme + "'; known schemes: "
                    + Registry.BACKENDS.keySet());
        }
        return backend;
    }

    /**
     * Progress a waiting thread can make for every backend started in this process that wants it (at most MPI's, in
     * practice); {@link CallerProgress#NONE} where none does. Any thread.
     */
    public static CallerProgress callerProgress() {
        java.util.List<CallerProgress> wanted = new java.util.ArrayList<>();
        for (Backend b : Registry.BACKENDS.values()) {
            CallerProgress p = b.callerProgress();
            if (p != CallerProgress.NONE) {
                wanted.add(p);
            }
        }
        return wanted.isEmpty() ? CallerProgress.NONE : wanted.size() == 1 ? wanted.getFirst() : () -> {
            java.util.List<CallerProgress.Driving> all = wanted.stream().map(CallerProgress::begin).toList();
            return new CallerProgress.Driving() {
                @Override
                public boolean drive() {
                    boolean any = false;
                    for (CallerProgress.Driving d : all) {
                        any |= d.drive();
                    }
                    return any;
                }

                @Override
                public void close() {
                    all.forEach(CallerProgress.Driving::close);
                }
            };
        };
    }

    /** The schemes of every backend found on the class path, sorted. */
    public static Set<String> schemes() {
        return Registry.BACKENDS.keySet();
    }

    /** Connect through an explicit backend; tests use it to inject failing connectors. */
    static Comm connect(Backend backend, Address address, CommOptions options) {
        Address resolved = backend.resolve(address);
        Comm raw = connectRaw(backend.connector(), resolved, options);
        return Handshake.client(raw, options);
    }

    /** One raw comm, retrying transient failures until the connect deadline. */
    static Comm connectRaw(Connector connector, Address address, CommOptions options) {
        Duration timeout = options.connectTimeout();
        long deadlineNs = System.nanoTime() + timeout.toNanos();
        CommClosedException last = null;
        int attempts = 0;
        while (true) {
            long remainingNs = deadlineNs - System.nanoTime();
            if (remainingNs <= 0) {
                throw new ConnectTimeoutException("could not connect to " + address + " within " + timeout.toMillis()
                        + " ms (" + attempts + " attempts); last error: "
                        + (last == null ? "none" : last.getMessage()), last);
            }
            attempts++;
            try {
                return connector.connect(address, Duration.ofNanos(remainingNs), options);
            } catch (FatalCommClosedException e) {
                throw e;
            } catch (CommClosedException e) {
                last = e;
                LOG.trace("connect attempt {} to {} failed: {}", attempts, address, e.getMessage());
            }
            backoff(attempts, deadlineNs, address);
        }
    }

    private static void backoff(int attempts, long deadlineNs, Address address) {
        long capNs = Math.min(BACKOFF_MAX_NS, BACKOFF_BASE_NS << Math.min(attempts - 1, 20));
        long sleepNs = Math.min(ThreadLocalRandom.current().nextLong(capNs + 1), deadlineNs - System.nanoTime());
        if (sleepNs <= 0) {
            return;
        }
        try {
            Thread.sleep(Duration.ofNanos(sleepNs));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommClosedException("interrupted while connecting to " + address, e);
        }
    }

    /** Loaded once, on first use; a provider that fails to load is logged and skipped. */
    private static final class Registry {
        static final Map<String, Backend> BACKENDS = load();

        private static Map<String, Backend> load() {
            Map<String, Backend> found = new TreeMap<>();
            for (ServiceLoader.Provider<Backend> provider : ServiceLoader.load(Backend.class, Comms.class.getClassLoader())
                    .stream().toList()) {
                try {
                    Backend backend = provider.get();
                    found.putIfAbsent(backend.scheme().toLowerCase(Locale.ROOT), backend);
                } catch (RuntimeException | java.util.ServiceConfigurationError e) {
                    LOG.warn("skipping comm backend {}: {}", provider.type().getName(), e.toString());
                }
            }
            return java.util.Collections.unmodifiableMap(found);
        }
    }
}
