package io.dask4j.comm;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.SecureRandom;
import java.security.UnrecoverableKeyException;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.MGF1ParameterSpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.PSSParameterSpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/**
 * Loads {@link TlsMaterial} into an {@link SSLContext} with the JDK alone: key stores with {@link KeyStore}, PEM
 * certificates with {@link CertificateFactory}, PEM keys with {@link KeyFactory} and {@link PKCS8EncodedKeySpec}.
 * Every failure is a {@link TlsException} naming the file and what is wrong with it. Stateless; any thread.
 */
final class TlsContexts {
    private static final String PKCS8_BEGIN = "-----BEGIN PRIVATE KEY-----";
    private static final String PKCS8_END = "-----END PRIVATE KEY-----";

    private TlsContexts() {
    }

    static SSLContext load(TlsMaterial material) {
        KeyStore keys;
        char[] keyPassword;
        KeyStore trust;
        switch (material) {
            case TlsMaterial.KeyStores s -> {
                keys = s.keyStore() == null ? null : store(s.keyStore(), s.keyStorePassword(), "TLS key store");
                keyPassword = s.keyStorePassword() == null ? new char[0] : s.keyStorePassword().toCharArray();
                trust = s.trustStore() == null ? null : store(s.trustStore(), s.trustStorePassword(), "TLS trust store");
                if (keys != null) {
                    requireKey(keys, s.keyStore());
                }
            }
            case TlsMaterial.Pem p -> {
                keyPassword = new char[0];
                keys = p.certificateChain() == null ? null : pemKeyStore(p.certificateChain(), p.privateKey(), keyPassword);
                trust = p.caBundle() == null ? null : pemTrustStore(p.caBundle());
            }
        }
        try {
            KeyManager[] keyManagers = null;
            if (keys != null) {
                KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                kmf.init(keys, keyPassword);
                keyManagers = kmf.getKeyManagers();
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            TrustManager[] trustManagers = tmf.getTrustManagers();
            SSLContext context = SSLContext.getInstance(TlsOptions.PROTOCOL);
            context.init(keyManagers, trustManagers, new SecureRandom());
            return context;
        } catch (UnrecoverableKeyException e) {
            throw new TlsException("the private key in " + material + " is protected by another password than its "
                    + "key store's: " + e.getMessage(), e);
        } catch (GeneralSecurityException e) {
            throw new TlsException("cannot set up TLS with " + material + ": " + e.getMessage(), e);
        }
    }

    /** A PKCS12 or JKS store (detected from its contents). */
    private static KeyStore store(Path path, String password, String what) {
        checkReadable(path, what);
        try {
            return KeyStore.getInstance(path.toFile(), password == null ? null : password.toCharArray());
        } catch (IOException e) {
            if (e.getCause() instanceof UnrecoverableKeyException || String.valueOf(e.getMessage()).contains("password")) {
                throw new TlsException("wrong password for " + what + " " + path + " (" + e.getMessage() + ")", e);
            }
            throw new TlsException("cannot read " + what + " " + path + ": " + e.getMessage(), e);
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new TlsException("cannot read " + what + " " + path + " (a PKCS12 or JKS key store is expected): "
                    + e.getMessage(), e);
        }
    }

    private static void requireKey(KeyStore keys, Path path) {
        try {
            for (String alias : Collections.list(keys.aliases())) {
                if (keys.isKeyEntry(alias)) {
                    return;
                }
            }
        } catch (GeneralSecurityException e) {
            throw new TlsException("cannot read TLS key store " + path + ": " + e.getMessage(), e);
        }
        throw new TlsException("TLS key store " + path + " holds no private key (only certificates: a trust store?)");
    }

    private static KeyStore pemKeyStore(Path chainFile, Path keyFile, char[] password) {
        List<Certificate> chain = certificates(chainFile, "TLS certificate chain");
        PrivateKey key = privateKey(keyFile, chain.getFirst().getPublicKey().getAlgorithm());
        if (!pairs(key, chain.getFirst().getPublicKey())) {
            throw new TlsException("the private key in " + keyFile + " does not go with the certificate in " + chainFile
                    + " (the first certificate must be the key's own)");
        }
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry("dask4j", key, password, chain.toArray(Certificate[]::new));
            return store;
        } catch (IOException | GeneralSecurityException e) {
            throw new TlsException("the private key in " + keyFile + " does not go with the certificate in " + chainFile
                    + ": " + e.getMessage(), e);
        }
    }

    /** Whether {@code key} signs what {@code publicKey} verifies: a key and a certificate of another pair do not. */
    private static boolean pairs(PrivateKey key, PublicKey publicKey) {
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "RSASSA-PSS" -> "RSASSA-PSS";
            default -> key.getAlgorithm();   // Ed25519, Ed448, EdDSA: the key names its signature
        };
        byte[] probe = "dask4j key pairing check".getBytes(StandardCharsets.US_ASCII);
        try {
            Signature signer = Signature.getInstance(algorithm);
            if (algorithm.equals("RSASSA-PSS")) {
                signer.setParameter(new PSSParameterSpec("SHA-256", "MGF1", MGF1ParameterSpec.SHA256, 32, 1));
            }
            signer.initSign(key);
            signer.update(probe);
            byte[] signature = signer.sign();
            signer.initVerify(publicKey);
            signer.update(probe);
            return signer.verify(signature);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    private static KeyStore pemTrustStore(Path bundle) {
        List<Certificate> cas = certificates(bundle, "TLS CA bundle");
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            for (int i = 0; i < cas.size(); i++) {
                store.setCertificateEntry("ca-" + i, cas.get(i));
            }
            return store;
        } catch (IOException | GeneralSecurityException e) {
            throw new TlsException("cannot use the certificates of " + bundle + ": " + e.getMessage(), e);
        }
    }

    private static List<Certificate> certificates(Path file, String what) {
        checkReadable(file, what);
        try (InputStream in = Files.newInputStream(file)) {
            List<Certificate> certificates = new ArrayList<>(CertificateFactory.getInstance("X.509").generateCertificates(in));
            if (certificates.isEmpty()) {
                throw new TlsException(what + " " + file + " holds no certificate");
            }
            return certificates;
        } catch (IOException | GeneralSecurityException e) {
            throw new TlsException("cannot read " + what + " " + file + " (PEM certificates are expected): "
                    + e.getMessage(), e);
        }
    }

    private static PrivateKey privateKey(Path file, String algorithm) {
        checkReadable(file, "TLS private key");
        String text;
        try {
            text = Files.readString(file, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new TlsException("cannot read TLS private key " + file + ": " + e.getMessage(), e);
        }
        int begin = text.indexOf(PKCS8_BEGIN);
        int end = text.indexOf(PKCS8_END);
        if (begin < 0 || end < begin) {
            String found = text.contains("ENCRYPTED PRIVATE KEY") ? "an encrypted key"
                    : text.contains("RSA PRIVATE KEY") || text.contains("EC PRIVATE KEY") ? "a PKCS#1 or SEC1 key"
                    : "no PEM private key";
            throw new TlsException("TLS private key " + file + " holds " + found + "; an unencrypted PKCS#8 key ("
                    + PKCS8_BEGIN + ") is needed: openssl pkcs8 -topk8 -nocrypt -in " + file + " -out key.pem");
        }
        try {
            byte[] der = Base64.getMimeDecoder().decode(text.substring(begin + PKCS8_BEGIN.length(), end));
            return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
        } catch (IllegalArgumentException | GeneralSecurityException e) {
            throw new TlsException("cannot read TLS private key " + file + " as a PKCS#8 " + algorithm + " key (the "
                    + "certificate's key type): " + e.getMessage(), e);
        }
    }

    private static void checkReadable(Path path, String what) {
        try (InputStream ignored = Files.newInputStream(path)) {
            // Opened: readable.
        } catch (NoSuchFileException e) {
            throw new TlsException(what + " " + path + " does not exist", e);
        } catch (AccessDeniedException e) {
            throw new TlsException(what + " " + path + " is not readable by this user", e);
        } catch (IOException e) {
            throw new TlsException("cannot read " + what + " " + path + ": " + e, e);
        }
    }
}
