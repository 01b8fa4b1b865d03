package io.dask4j.comm;

import java.nio.file.Path;

/**
 * Where a TLS endpoint's key material lives: its own certificate chain and private key (needed by listeners, and by
 * clients of a listener that requires client certificates), and the certificates it trusts to have signed its peers'
 * (a trust store or CA bundle; none means the JDK's default trust store, the public certificate authorities).
 * {@link TlsOptions} loads it. Immutable.
 */
public sealed interface TlsMaterial {

    /** Whether this material holds a certificate and key of our own. */
    boolean hasCertificate();

    /**
     * A PKCS12 or JKS key store (the type is detected) and trust store. The key's password is the key store's, as
     * keytool and openssl make PKCS12 files.
     *
     * @param keyStore our certificate chain and private key, or null for a client without one
     * @param keyStorePassword its password (null for none)
     * @param trustStore the certificates we trust, or null for the JDK's default trust store
     * @param trustStorePassword its password (null for none: a trust store's certificates are readable without one)
     */
    record KeyStores(Path keyStore, String keyStorePassword, Path trustStore, String trustStorePassword)
            implements TlsMaterial {
        @Override
        public boolean hasCertificate() {
            return keyStore != null;
        }

        /** Without the passwords. */
        @Override
        public String toString() {
            return "KeyStores[keyStore=" + keyStore + ", trustStore=" + trustStore + "]";
        }
    }

    /**
     * PEM files, as openssl and most certificate authorities hand them out.
     *
     * @param certificateChain our certificate, then the intermediate ones (if any), or null for a client without one
     * @param privateKey our private key, unencrypted PKCS#8 ({@code -----BEGIN PRIVATE KEY-----}; protect it with
     *     file permissions), or null with {@code certificateChain}
     * @param caBundle the certificates we trust, or null for the JDK's default trust store
     */
    record Pem(Path certificateChain, Path privateKey, Path caBundle) implements TlsMaterial {
        public Pem {
            if ((certificateChain == null) != (privateKey == null)) {
                throw new IllegalArgumentException("a PEM certificate chain and its private key go together: got "
                        + (certificateChain == null ? "a key without a certificate" : "a certificate without its key"));
            }
        }

        @Override
        public boolean hasCertificate() {
            return certificateChain != null;
        }
    }

    /** Key stores: see {@link KeyStores}. */
    static TlsMaterial keyStores(Path keyStore, String keyStorePassword, Path trustStore, String trustStorePassword) {
        return new KeyStores(keyStore, keyStorePassword, trustStore, trustStorePassword);
    }

    /** PEM files: see {@link Pem}. */
    static TlsMaterial pem(Path certificateChain, Path privateKey, Path caBundle) {
        return new Pem(certificateChain, privateKey, caBundle);
    }
}
