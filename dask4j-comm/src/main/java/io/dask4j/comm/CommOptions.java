package io.dask4j.comm;

import io.dask4j.comm.config.ConfigSource;
import io.dask4j.comm.config.Settings;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * Settings of the comm layer shared by every backend. Immutable; build variants with the {@code with*}
 * methods.
 *
 * @param secret shared secret for HMAC challenge-response authentication, at least {@value #MIN_SECRET_BYTES} bytes
 *     (128 bits), or {@code null} for none. When one side has a secret, the other must prove it knows the same one.
 *     A listener on a backend that other users can reach (tcp) refuses to start without one unless {@code
 *     insecureNoAuth} is set; the runtime's entry points generate one per cluster ({@link #withGeneratedSecret()}).
 * @param identity who this endpoint says it is in the handshake (for logs and error messages)
 * @param connectTimeout how long {@link Comms#connect} keeps retrying (Dask's default: 30 s)
 * @param handshakeTimeout how long a handshake may take before the comm is dropped
 * @param maxMessageBytes largest message (header plus frames) accepted; checked before allocating
 * @param deadPeerTimeout how soon a tcp comm to a peer that went silent without closing (a host that lost
 *     power, a cut cable) fails. While the comm waits for data, TCP keepalive probes start after a quarter or so
 *     of it and the comm fails when ten go unanswered, as Dask's {@code distributed.comm.timeouts.tcp} (30 s)
 *     sets them (Linux caps each spacing at 32767 s). Data sent but left unacknowledged this long makes the kernel
 *     drop the connection ({@code TCP_USER_TIMEOUT}, as Dask sets it; on Linux, with native access enabled), so a
 *     comm that wrote a request to a host that then froze fails this long after, instead of after the kernel's
 *     retransmission timeout of about 15 minutes. And a write that gets no byte into the kernel for this long
 *     aborts the comm: the writer, and any reader, get a {@link CommClosedException} naming the peer and the
 *     timeout. A live peer that stops reading until the socket buffers are full counts as silent too; a slow one
 *     keeps a large frame going as long as it takes 4 MiB of it per timeout. At least 11 s; {@link Duration#ZERO}
 *     leaves the operating system's keepalive settings (Linux: two hours before the first probe) and its
 *     retransmission timeout, and turns the write check off. The backends that do not use TCP ignore it.
 * @param insecureNoAuth the explicit opt-out: lets listeners that other users can reach run without a secret, so
 *     that anyone who can reach the port may register, submit, fetch and put. Listeners log a warning when they
 *     start so. Has no effect when a secret is set (the secret is then required).
 * @param limits what one peer may take of this process: the read budget, the stall timeout of a started message,
 *     the cap on comms handshaking at once ({@link CommLimits})
 * @param tls the key material and TLS settings of {@code tls://} comms, or {@code null} for none (then tls:// cannot
 *     be used; the other backends ignore it)
 * @param routes which address {@link Comms#connect} dials for an advertised one ({@link AddressRoutes#DIRECT}: as
 *     given); an MPI job's ranks use it to reach a peer over mpi:// or tcp:// depending on its host
 */
public record CommOptions(byte[] secret, String identity, Duration connectTimeout, Duration handshakeTimeout,
                          long maxMessageBytes, Duration deadPeerTimeout, boolean insecureNoAuth, CommLimits limits,
                          TlsOptions tls, AddressRoutes routes) {

    /** Environment variable holding the shared secret, as text. */
    public static final String SECRET_ENV = Settings.SECRET_VARIABLE;
    public static final long DEFAULT_MAX_MESSAGE_BYTES = 4L << 30;
    public static final Duration DEFAULT_DEAD_PEER_TIMEOUT = Duration.ofSeconds(30);
    /** Ten keepalive probes at least a second apart, after at least a second of silence. */
    public static final Duration MIN_DEAD_PEER_TIMEOUT = Duration.ofSeconds(11);
    /** The shortest secret accepted: 128 bits. */
    public static final int MIN_SECRET_BYTES = 16;

    public CommOptions {
        Objects.requireNonNull(identity, "identity");
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        Objects.requireNonNull(handshakeTimeout, "handshakeTimeout");
        if (maxMessageBytes <= 0) {
            throw new IllegalArgumentException("maxMessageBytes must be positive: " + maxMessageBytes);
        }
        Objects.requireNonNull(deadPeerTimeout, "deadPeerTimeout");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(routes, "routes");
        if (!deadPeerTimeout.isZero() && deadPeerTimeout.compareTo(MIN_DEAD_PEER_TIMEOUT) < 0) {
            throw new IllegalArgumentException("deadPeerTimeout must be at least " + MIN_DEAD_PEER_TIMEOUT.toSeconds()
                    + " s (or zero for the operating system's keepalive): " + deadPeerTimeout);
        }
        if (secret != null && secret.length < MIN_SECRET_BYTES) {
            throw new IllegalArgumentException(secret.length == 0
                    ? "the secret is empty: an empty secret would mean no authentication; leave it unset to have one "
                    + "generated, or opt out explicitly with withInsecureNoAuth()"
                    : "the secret has " + secret.length * 8 + " bits; at least " + MIN_SECRET_BYTES * 8 + " (" + MIN_SECRET_BYTES
                    + " bytes) are needed; leave it unset to have one generated");
        }
        secret = secret == null ? null : secret.clone();
    }

    /** Defaults, with the secret taken from {@code DASK4J_SECRET} and TLS from {@link TlsEnvironment} when set. */
    public static CommOptions defaults() {
        return fromEnvironment(System.getenv());
    }

    /**
     * Defaults, with the secret taken from {@code DASK4J_SECRET} in {@code env} when set, and TLS options from its
     * {@link TlsEnvironment} variables when set.
     *
     * @throws IllegalArgumentException if the variable is set but empty or shorter than 128 bits: an empty secret
     *     never silently means no authentication; TlsException if TLS variables name unusable key material
     */
    public static CommOptions fromEnvironment(Map<String, String> env) {
        String text = Settings.SECRET.exact(ConfigSource.ofEnvironment(env));
        byte[] secret = text == null ? null : text.getBytes(StandardCharsets.UTF_8);
        CommOptions options;
        try {
            options = new CommOptions(secret, "anonymous", Duration.ofSeconds(30), Duration.ofSeconds(10),
                    DEFAULT_MAX_MESSAGE_BYTES, DEFAULT_DEAD_PEER_TIMEOUT, false, CommLimits.defaults(), null, AddressRoutes.DIRECT);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(SECRET_ENV + " is set but unusable: " + e.getMessage(), e);
        }
        return options.withTls(TlsEnvironment.read(env));
    }

    /**
     * These options with a fresh random secret ({@link ClusterSecret#generate()}) if they have none and do not opt
     * out of authentication (nor leave it to client certificates, {@link TlsOptions#provesMembership()}); else these
     * options.
     */
    public CommOptions withGeneratedSecret() {
        boolean authenticated = hasSecret() || insecureNoAuth || (tls != null && tls.provesMembership());
        return authenticated ? this : withSecret(ClusterSecret.generate());
    }

    /** The secret as text (as {@code DASK4J_SECRET} and scheduler files carry it), or null for none. */
    public String secretText() {
        return secret == null ? null : new String(secret, StandardCharsets.UTF_8);
    }

    /** See {@code insecureNoAuth}: lets listeners that other users can reach run without a secret. */
    public CommOptions withInsecureNoAuth(boolean insecure) {
        return new CommOptions(secret, identity, connectTimeout, handshakeTimeout, maxMessageBytes, deadPeerTimeout,
                insecure, limits, tls, routes);
    }

    public CommOptions withSecret(byte[] newSecret) {
        return new CommOptions(newSecret, identity, connectTimeout, handshakeTimeout, maxMessageBytes, deadPeerTimeout,
                insecureNoAuth, limits, tls, routes);
    }

    public CommOptions withSecret(String newSecret) {
        return withSecret(newSecret == null ? null : newSecret.getBytes(StandardCharsets.UTF_8));
    }

    public CommOptions withIdentity(String newIdentity) {
        return new CommOptions(secret, newIdentity, connectTimeout, handshakeTimeout, maxMessageBytes, deadPeerTimeout,
                insecureNoAuth, limits, tls, routes);
    }

    public CommOptions withConnectTimeout(Duration timeout) {
        return new CommOptions(secret, identity, timeout, handshakeTimeout, maxMessageBytes, deadPeerTimeout,
                insecureNoAuth, limits, tls, routes);
    }

    public CommOptions withHandshakeTimeout(Duration timeout) {
        return new CommOptions(secret, identity, connectTimeout, timeout, maxMessageBytes, deadPeerTimeout,
                insecureNoAuth, limits, tls, routes);
    }

    public CommOptions withMaxMessageBytes(long bytes) {
        return new CommOptions(secret, identity, connectTimeout, handshakeTimeout, bytes, deadPeerTimeout,
                insecureNoAuth, limits, tls, routes);
    }

    public CommOptions withDeadPeerTimeout(Duration timeout) {
        return new CommOptions(secret, identity, connectTimeout, handshakeTimeout, maxMessageBytes, timeout,
                insecureNoAuth, limits, tls, routes);
    }

    public CommOptions withLimits(CommLimits newLimits) {
        return new CommOptions(secret, identity, connectTimeout, handshakeTimeout, maxMessageBytes, deadPeerTimeout,
                insecureNoAuth, newLimits, tls, routes);
    }

    /** These options with {@code newTls} for tls:// comms (null: none). */
    public CommOptions withTls(TlsOptions newTls) {
        return new CommOptions(secret, identity, connectTimeout, handshakeTimeout, maxMessageBytes, deadPeerTimeout,
                insecureNoAuth, limits, newTls, routes);
    }

    /** These options dialing through {@code newRoutes} ({@link AddressRoutes#DIRECT}: every address as given). */
    public CommOptions withRoutes(AddressRoutes newRoutes) {
        return new CommOptions(secret, identity, connectTimeout, handshakeTimeout, maxMessageBytes, deadPeerTimeout,
                insecureNoAuth, limits, tls, newRoutes);
    }

    /** The TLS options, or a {@link TlsException} saying that tls:// needs them. */
    public TlsOptions requireTls() {
        if (tls == null) {
            throw new TlsException("tls:// comms need TLS options (key material): CommOptions.withTls(...), or "
                    + "--tls-* options on the command line");
        }
        return tls;
    }

    @Override
    public byte[] secret() {
        return secret == null ? null : secret.clone();
    }

    public boolean hasSecret() {
        return secret != null;
    }

    @Override
    public String toString() {
        return "CommOptions[identity=" + identity + ", secret=" + (secret == null ? "none" : "set")
                + ", connectTimeout=" + connectTimeout + ", handshakeTimeout=" + handshakeTimeout
                + ", maxMessageBytes=" + maxMessageBytes + ", deadPeerTimeout=" + deadPeerTimeout
                + (insecureNoAuth ? ", insecureNoAuth" : "") + ", " + limits + (tls == null ? "" : ", " + tls)
                + (routes == AddressRoutes.DIRECT ? "" : ", routes=" + routes) + "]";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CommOptions other && java.util.Arrays.equals(secret, other.secret)
                && identity.equals(other.identity) && connectTimeout.equals(other.connectTimeout)
                && handshakeTimeout.equals(other.handshakeTimeout) && maxMessageBytes == other.maxMessageBytes
                && deadPeerTimeout.equals(other.deadPeerTimeout) && insecureNoAuth == other.insecureNoAuth
                && limits.equals(other.limits) && Objects.equals(tls, other.tls) && routes.equals(other.routes);
    }

    @Override
    public int hashCode() {
        return Objects.hash(java.util.Arrays.hashCode(secret), identity, connectTimeout, handshakeTimeout, maxMessageBytes,
                deadPeerTimeout, insecureNoAuth, limits, tls, routes);
    }
}
