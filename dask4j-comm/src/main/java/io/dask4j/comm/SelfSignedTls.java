package io.dask4j.comm;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed certificate for one host's cluster (names {@code localhost}, {@code 127.0.0.1} and {@code ::1}),
 * made with the JDK's {@code keytool} (EC P-256, valid for {@value #VALIDITY_DAYS} days): what a {@code LocalCluster}
 * over {@code tls://} uses when given no key material, and what tests use. Every endpoint presents the certificate and
 * trusts only it, so mutual TLS works too. Not for clusters that span hosts: give those certificates of your own.
 *
 * <p>The files live in a directory readable by its owner only; the key store's password is random and held here
 * (a worker process gets it through its environment). Immutable once made; {@link #create} from any thread.
 *
 * @param keyStore PKCS12: the private key and certificate
 * @param trustStore PKCS12: the certificate alone
 * @param certificate PEM: the certificate (also the CA bundle)
 * @param privateKey PEM: the private key, unencrypted PKCS#8
 * @param password of both stores
 */
public record SelfSignedTls(Path keyStore, Path trustStore, Path certificate, Path privateKey, String password) {

    static final int VALIDITY_DAYS = 30;
    private static final String ALIAS = "dask4j";

    /**
     * Makes a fresh key and certificate in {@code directory} (created readable by its owner only if missing).
     *
     * @throws TlsException if keytool cannot be run or fails
     */
    public static SelfSignedTls create(Path directory) {
        String password = ClusterSecret.generate();
        try {
            Files.createDirectories(directory, PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rwx------")));
            Path keyStore = directory.resolve("key.p12");
            runKeytool(keyStore, password);
            KeyStore keys = KeyStore.getInstance(keyStore.toFile(), password.toCharArray());
            Certificate certificate = keys.getCertificate(ALIAS);
            Key key = keys.getKey(ALIAS, password.toCharArray());

            Path trustStore = directory.resolve("trust.p12");
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry(ALIAS, certificate);
            try (OutputStream out = Files.newOutputStream(trustStore)) {
                trust.store(out, password.toCharArray());
            }
            Path certificatePem = directory.resolve("cert.pem");
            Files.writeString(certificatePem, pem("CERTIFICATE", certificate.getEncoded()), StandardCharsets.US_ASCII);
            Path keyPem = directory.resolve("key.pem");
            Files.writeString(keyPem, pem("PRIVATE KEY", key.getEncoded()), StandardCharsets.US_ASCII);
            return new SelfSignedTls(keyStore, trustStore, certificatePem, keyPem, password);
        } catch (IOException | GeneralSecurityException e) {
            throw new TlsException("cannot make a self-signed TLS certificate in " + directory + ": " + e, e);
        }
    }

    /** The key and trust stores, as {@link TlsMaterial}. */
    public TlsMaterial keyStores() {
        return new TlsMaterial.KeyStores(keyStore, password, trustStore, password);
    }

    /** The PEM files, as {@link TlsMaterial}: the certificate is its own CA bundle. */
    public TlsMaterial pemFiles() {
        return new TlsMaterial.Pem(certificate, privateKey, certificate);
    }

    /** Without the password. */
    @Override
    public String toString() {
        return "SelfSignedTls[" + keyStore.getParent() + "]";
    }

    private static void runKeytool(Path keyStore, String password) throws IOException {
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        // The password reaches keytool through its environment (":env"), not its command line, which others may read.
        List<String> command = List.of(keytool.toString(), "-genkeypair", "-alias", ALIAS, "-keyalg", "EC",
                "-groupname", "secp256r1", "-sigalg", "SHA256withECDSA", "-dname", "CN=dask4j-local",
                "-ext", "SAN=dns:localhost,ip:127.0.0.1,ip:::1", "-validity", Integer.toString(VALIDITY_DAYS),
                "-storetype", "PKCS12", "-keystore", keyStore.toString(),
                "-storepass:env", "KEYTOOL_STOREPASS", "-keypass:env", "KEYTOOL_STOREPASS");
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("KEYTOOL_STOREPASS", password);
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                process.destroyForcibly();
                throw new IOException("keytool failed: " + output.strip());
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while keytool ran", e);
        }
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }
}
