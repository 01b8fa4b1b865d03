package io.dask4j.comm;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * Settings of the comm layer shared by every backend. Immutable; build variants with the {@code with*}
 * methods.
 *
 * @param secret shared secret for HMAC challenge-response authentication, or {@code null} for none.
 *     When one side has a secret, the other must prove it knows the same one.
 * @param identity who this endpoint says it is in the handshake (for logs and error messages)
 * @param connectTimeout how long {@link Comms#connect} keeps retrying (Dask's default: 30 s)
 * @param handshakeTimeout how long a handshake may take before the comm is dropped
 * @param maxMessageBytes largest message (header plus frames) accepted; checked before allocating
 */
public record CommOptions(byte[] secret, String identity, Duration connectTimeout, Duration handshakeTimeout,
                          long maxMessageBytes) {

    /** Environment variable holding the shared secret, as text. */
    public static final String SECRET_ENV = "DASK4J_SECRET";
    public static final long DEFAULT_MAX_MESSAGE_BYTES = 4L << 30;

    public CommOptions {
        Objects.requireNonNull(identity, "identity");
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        Objects.requireNonNull(handshakeTimeout, "handshakeTimeout");
        if (maxMessageBytes <= 0) {
            throw new IllegalArgumentException("maxMessageBytes must be positive: " + maxMessageBytes);
        }
        secret = secret == null ? null : secret.clone();
    }

    /** Defaults, with the secret taken from {@value #SECRET_ENV} when set. */
    public static CommOptions defaults() {
        return fromEnvironment(System.getenv());
    }

    public static CommOptions fromEnvironment(Map<String, String> env) {
        String text = env.get(SECRET_ENV);
        byte[] secret = text == null || text.isEmpty() ? null : text.getBytes(StandardCharsets.UTF_8);
        return new CommOptions(secret, "anonymous", Duration.ofSeconds(30), Duration.ofSeconds(10),
                DEFAULT_MAX_MESSAGE_BYTES);
    }

    public CommOptions withSecret(byte[] newSecret) {
        return new CommOptions(newSecret, identity, connectTimeout, handshakeTimeout, maxMessageBytes);
    }

    public CommOptions withSecret(String newSecret) {
        return withSecret(newSecret == null ? null : newSecret.getBytes(StandardCharsets.UTF_8));
    }

    public CommOptions withIdentity(String newIdentity) {
        return new CommOptions(secret, newIdentity, connectTimeout, handshakeTimeout, maxMessageBytes);
    }

    public CommOptions withConnectTimeout(Duration timeout) {
        return new CommOptions(secret, identity, timeout, handshakeTimeout, maxMessageBytes);
    }

    public CommOptions withHandshakeTimeout(Duration timeout) {
        return new CommOptions(secret, identity, connectTimeout, timeout, maxMessageBytes);
    }

    public CommOptions withMaxMessageBytes(long bytes) {
        return new CommOptions(secret, identity, connectTimeout, handshakeTimeout, bytes);
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
                + ", maxMessageBytes=" + maxMessageBytes + "]";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CommOptions other && java.util.Arrays.equals(secret, other.secret)
                && identity.equals(other.identity) && connectTimeout.equals(other.connectTimeout)
                && handshakeTimeout.equals(other.handshakeTimeout) && maxMessageBytes == other.maxMessageBytes;
    }

    @Override
    public int hashCode() {
        return Objects.hash(java.util.Arrays.hashCode(secret), identity, connectTimeout, handshakeTimeout, maxMessageBytes);
    }
}
