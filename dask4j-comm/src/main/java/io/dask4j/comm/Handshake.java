package io.dask4j.comm;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The handshake every comm goes through before users see it, the same for every backend.
 *
 * <ol>
 *   <li>Both ends at once: send {@code dask4j-hello {version, identity, nonce, auth}}, read the peer's; a
 *       different version is a {@link ProtocolException}; a secret on one side only is an {@link
 *       AuthenticationException}. Without secrets the handshake ends here (one round trip).
 *   <li>With secrets, the client proves itself first: it sends {@code dask4j-auth {mac}} where {@code mac =
 *       HMAC-SHA256(secret, "dask4j-v1/client" + clientNonce + serverNonce)}; the server compares it in constant time
 *       with the expected one, and only if it matches sends its own proof ({@code "dask4j-v1/server" + serverNonce +
 *       clientNonce}), which the client checks in turn. So a peer that connects without the secret never receives a
 *       value computed from it, and has nothing to test guesses of the secret against offline; it only learns that
 *       its guess was wrong, once per connection. The role label stops a reflected proof from passing.
 * </ol>
 * Until it succeeds, a {@link LimitedComm} accepts only small messages. A side that fails sends {@code dask4j-handshake-error {kind, reason}} before closing, so the other end
 * raises the same typed error with the reason, even when it could not tell by itself. Only msgpack
 * primitives are read here: no object is deserialized before the peer has authenticated.
 *
 * <p>A watchdog aborts the raw comm at {@link CommOptions#handshakeTimeout()}, which unblocks the read.
 * Thread-safe; each call runs on the caller's thread.
 */
final class Handshake {

    static final int VERSION = 1;
    static final String HELLO = "dask4j-hello";
    static final String PROOF = "dask4j-auth";
    static final String ERROR = "dask4j-handshake-error";
    private static final int NONCE_BYTES = 32;
    private static final SecureRandom RANDOM = new SecureRandom();
    /** One daemon thread for all handshakes of the process; it only aborts comms, which is quick. */
    private static final ScheduledThreadPoolExecutor TIMER = newTimer();

    private Handshake() {
    }

    static Comm client(Comm raw, CommOptions options) {
        return run(raw, options, true);
    }

    static Comm server(Comm raw, CommOptions options) {
        return run(raw, options, false);
    }

    private static Comm run(Comm raw, CommOptions options, boolean client) {
        AtomicBoolean timedOut = new AtomicBoolean();
        long timeoutMs = options.handshakeTimeout().toMillis();
        ScheduledFuture<?> watchdog = TIMER.schedule(() -> {
            timedOut.set(true);
            raw.abort();
        }, timeoutMs, TimeUnit.MILLISECONDS);
        try {
            String peerIdentity = exchange(raw, options, client);
            if (!watchdog.cancel(false)) {
                throw new CommClosedException("handshake finished after its timeout");
            }
            if (raw instanceof LimitedComm limited) {
                limited.liftHandshakeLimit(options.maxMessageBytes());
            }
            return new HandshakenComm(raw, peerIdentity);
        } catch (CommException e) {
            watchdog.cancel(false);
            raw.abort();
            if (timedOut.get()) {
                throw new HandshakeTimeoutException("handshake with " + raw.peerAddress() + " timed out after "
                        + timeoutMs + " ms");
            }
            if (client && raw.peerAddress().scheme().equals("tcp") && e instanceof CommClosedException
                    && !(e instanceof FatalCommClosedException)) {
                // What a plaintext client of a tls:// listener sees: the listener drops it without a word it can read.
                throw new CommClosedException(e.getMessage() + " during the handshake (a tls:// listener drops "
                        + "plaintext peers so: if it is one, connect with a tls:// address)", e);
            }
            throw e;
        } catch (RuntimeException e) {
            watchdog.cancel(false);
            raw.abort();
            throw e;
        }
    }

    private static String exchange(Comm raw, CommOptions options, boolean client) {
        byte[] nonce = new byte[NONCE_BYTES];
        RANDOM.nextBytes(nonce);
        Map<String, Object> hello = new LinkedHashMap<>();
        hello.put("version", (long) VERSION);
        hello.put("identity", options.identity());
        hello.put("nonce", nonce);
        hello.put("auth", options.hasSecret());
        raw.write(Message.of(HELLO, hello));

        Message peerHello = expect(raw, HELLO);
        String peerIdentity;
        boolean peerAuth;
        byte[] peerNonce;
        long version;
        try {
            version = peerHello.getLong("version");
            peerIdentity = peerHello.getString("identity");
            peerAuth = peerHello.getBoolean("auth");
            peerNonce = peerHello.getBytes("nonce");
        } catch (ProtocolException e) {
            throw fail(raw, e);
        }
        String peer = "'" + peerIdentity + "' at " + raw.peerAddress();
        if (version != VERSION) {
            throw fail(raw, new ProtocolException("peer " + peer + " speaks dask4j comm protocol v" + version
                    + ", this side speaks v" + VERSION));
        }
        if (peerNonce.length != NONCE_BYTES) {
            throw fail(raw, new ProtocolException("peer " + peer + " sent a " + peerNonce.length + "-byte nonce"));
        }
        if (!options.hasSecret() && !peerAuth) {
            return peerIdentity;
        }
        if (!options.hasSecret()) {
            throw fail(raw, new AuthenticationException("peer " + peer + " requires authentication but no secret is "
                    + "configured on this side (set " + CommOptions.SECRET_ENV + ", or connect with the scheduler file, which "
                    + "holds the cluster's secret)"));
        }
        if (!peerAuth) {
            throw fail(raw, new AuthenticationException("authentication is required but peer " + peer
                    + " has no secret configured"));
        }
        byte[] secret = options.secret();
        if (client) {
            raw.write(Message.of(PROOF, Map.of("mac", mac(secret, "client", nonce, peerNonce))));
            checkProof(raw, peer, mac(secret, "server", peerNonce, nonce));
        } else {
            checkProof(raw, peer, mac(secret, "client", peerNonce, nonce));
            raw.write(Message.of(PROOF, Map.of("mac", mac(secret, "server", nonce, peerNonce))));
        }
        return peerIdentity;
    }

    /** Reads the peer's proof and compares it in constant time with {@code expected}. */
    private static void checkProof(Comm raw, String peer, byte[] expected) {
        byte[] theirs;
        try {
            theirs = expect(raw, PROOF).getBytes("mac");
        } catch (ProtocolException e) {
            throw fail(raw, e);
        }
        if (!MessageDigest.isEqual(expected, theirs)) {
            throw fail(raw, new AuthenticationException("peer " + peer + " failed authentication: wrong shared secret"));
        }
    }

    /** Reads the next handshake message; a peer's error report becomes the same typed error here. */
    private static Message expect(Comm raw, String op) {
        Message m = raw.read();
        if (m.op().equals(op)) {
            return m;
        }
        if (m.op().equals(ERROR)) {
            String reason = m.fields().get("reason") instanceof String s ? s : "no reason given";
            String text = "peer at " + raw.peerAddress() + " rejected the handshake: " + reason;
            throw "auth".equals(m.fields().get("kind")) ? new AuthenticationException(text) : new ProtocolException(text);
        }
        throw fail(raw, new ProtocolException("expected handshake message '" + op + "' from " + raw.peerAddress()
                + " but got '" + m.op() + "'"));
    }

    /** Tells the peer why (best effort), then returns the error for the caller to throw. */
    private static CommException fail(Comm raw, CommException error) {
        try {
            raw.write(Message.of(ERROR, Map.of("kind", error instanceof AuthenticationException ? "auth" : "protocol",
                    "reason", error.getMessage())));
            raw.close();
        } catch (CommException ignored) {
            // The peer is gone already; our own error is what matters.
        }
        return error;
    }

    static byte[] mac(byte[] secret, String role, byte[] proverNonce, byte[] verifierNonce) {
        try {
            Mac hmac = Mac.getInstance("HmacSHA256");
            hmac.init(new SecretKeySpec(secret, "HmacSHA256"));
            hmac.update(("dask4j-v" + VERSION + "/" + role).getBytes(StandardCharsets.UTF_8));
            hmac.update(proverNonce);
            hmac.update(verifierNonce);
            return hmac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available in this JDK", e);
        }
    }

    private static ScheduledThreadPoolExecutor newTimer() {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "dask4j-handshake-timer");
            t.setDaemon(true);
            return t;
        });
        timer.setRemoveOnCancelPolicy(true);
        return timer;
    }
}
