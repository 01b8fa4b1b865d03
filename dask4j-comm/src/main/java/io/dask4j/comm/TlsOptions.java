package io.dask4j.comm;

import java.util.Objects;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

/**
 * TLS settings of {@code tls://} comms, carried in {@link CommOptions#tls()}: the key material ({@link TlsMaterial}),
 * loaded once when these options are made, so that a missing file or a wrong password fails where it was given, with
 * a {@link TlsException} naming the file.
 *
 * <p>TLS 1.3 only, with its three AEAD cipher suites (AES-GCM and ChaCha20-Poly1305); no older protocol and no weaker
 * suite is offered or accepted.
 *
 * <ul>
 *   <li>{@link #withMutualAuth(boolean) mutual authentication} (off by default): listeners require a client
 *       certificate signed by a certificate they trust;
 *   <li>{@link #withHostnameVerification(boolean) hostname verification} (on by default): a client checks that the
 *       listener's certificate names the host (name or IP address) it connected to. Turn it off only for test
 *       clusters whose certificates name no host; the certificate must still be trusted;
 *   <li>{@link #withSecretHandshake(boolean) the secret handshake} (on by default): the cluster secret's HMAC
 *       handshake runs inside TLS, as over tcp: TLS encrypts, the secret proves membership of the cluster. Turned
 *       off, a tls listener starts without a secret only with mutual authentication, whose client certificates then
 *       prove membership (see {@link #provesMembership()}).
 * </ul>
 *
 * <p>Immutable and thread-safe; the {@link SSLContext} is shared by every comm made with these options.
 */
public final class TlsOptions {

    /** The one protocol offered and accepted. */
    public static final String PROTOCOL = "TLSv1.3";
    /** The cipher suites offered and accepted, strongest first. */
    static final String[] CIPHER_SUITES = {"TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256", "TLS_AES_128_GCM_SHA256"};

    private final TlsMaterial material;
    private final SSLContext context;
    private final boolean mutualAuth;
    private final boolean verifyHostname;
    private final boolean secretHandshake;

    private TlsOptions(TlsMaterial material, SSLContext context, boolean mutualAuth, boolean verifyHostname,
                       boolean secretHandshake) {
        this.material = material;
        this.context = context;
        this.mutualAuth = mutualAuth;
        this.verifyHostname = verifyHostname;
        this.secretHandshake = secretHandshake;
    }

    /**
     * Loads {@code material}: hostname verification and the secret handshake on, mutual authentication off.
     *
     * @throws TlsException naming the file that is missing, unreadable, malformed or locked by another password
     */
    public static TlsOptions of(TlsMaterial material) {
        Objects.requireNonNull(material, "material");
        return new TlsOptions(material, TlsContexts.load(material), false, true, true);
    }

    /** {@link #of} a PKCS12 or JKS key store and trust store: see {@link TlsMaterial.KeyStores}. */
    public static TlsOptions keyStores(java.nio.file.Path keyStore, String keyStorePassword, java.nio.file.Path trustStore,
                                       String trustStorePassword) {
        return of(new TlsMaterial.KeyStores(keyStore, keyStorePassword, trustStore, trustStorePassword));
    }

    /** {@link #of} PEM files: see {@link TlsMaterial.Pem}. */
    public static TlsOptions pem(java.nio.file.Path certificateChain, java.nio.file.Path privateKey,
                                 java.nio.file.Path caBundle) {
        return of(new TlsMaterial.Pem(certificateChain, privateKey, caBundle));
    }

    /** Listeners require client certificates signed by a certificate they trust (and clients must present one). */
    public TlsOptions withMutualAuth(boolean required) {
        return new TlsOptions(material, context, required, verifyHostname, secretHandshake);
    }

    /** Whether clients check that the listener's certificate names the host they connected to (default: yes). */
    public TlsOptions withHostnameVerification(boolean verify) {
        return new TlsOptions(material, context, mutualAuth, verify, secretHandshake);
    }

    /**
     * Whether listeners also need the cluster secret (default: yes). False lets a tls listener start without a secret
     * if mutual authentication is on; a secret, when one is set, is still required.
     */
    public TlsOptions withSecretHandshake(boolean required) {
        return new TlsOptions(material, context, mutualAuth, verifyHostname, required);
    }

    /** Client certificates stand in for the secret: mutual authentication on and the secret handshake off. */
    public boolean provesMembership() {
        return mutualAuth && !secretHandshake;
    }

    public TlsMaterial material() {
        return material;
    }

    public boolean mutualAuth() {
        return mutualAuth;
    }

    public boolean verifyHostname() {
        return verifyHostname;
    }

    public boolean secretHandshake() {
        return secretHandshake;
    }

    /** For backends: an engine for the client end of a connection to {@code host:port}. */
    public SSLEngine clientEngine(String host, int port) {
        SSLEngine engine = context.createSSLEngine(host, port);
        engine.setUseClientMode(true);
        SSLParameters parameters = restricted(engine.getSSLParameters());
        if (verifyHostname) {
            parameters.setEndpointIdentificationAlgorithm("HTTPS");
        }
        engine.setSSLParameters(parameters);
        return engine;
    }

    /**
     * For backends: an engine for the server end of an accepted connection.
     *
     * @throws TlsException if the material holds no certificate of our own, which a listener needs
     */
    public SSLEngine serverEngine() {
        requireCertificate("listen on tls://");
        SSLEngine engine = context.createSSLEngine();
        engine.setUseClientMode(false);
        SSLParameters parameters = restricted(engine.getSSLParameters());
        parameters.setNeedClientAuth(mutualAuth);
        engine.setSSLParameters(parameters);
        return engine;
    }

    /** @throws TlsException saying that {@code purpose} needs a certificate and key of our own */
    public void requireCertificate(String purpose) {
        if (!material.hasCertificate()) {
            throw new TlsException("cannot " + purpose + " without a certificate and key of our own: " + material
                    + " holds none (give a key store, or a PEM certificate chain and private key)");
        }
    }

    private static SSLParameters restricted(SSLParameters parameters) {
        parameters.setProtocols(new String[] {PROTOCOL});
        parameters.setCipherSuites(CIPHER_SUITES.clone());
        return parameters;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TlsOptions other && material.equals(other.material) && mutualAuth == other.mutualAuth
                && verifyHostname == other.verifyHostname && secretHandshake == other.secretHandshake;
    }

    @Override
    public int hashCode() {
        return Objects.hash(material, mutualAuth, verifyHostname, secretHandshake);
    }

    @Override
    public String toString() {
        return "TlsOptions[" + material + (mutualAuth ? ", mutual" : "") + (verifyHostname ? "" : ", no hostname check")
                + (secretHandshake ? "" : ", no secret handshake") + "]";
    }
}
