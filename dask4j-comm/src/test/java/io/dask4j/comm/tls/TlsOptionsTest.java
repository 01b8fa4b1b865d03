package io.dask4j.comm.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dask4j.comm.SelfSignedTls;
import io.dask4j.comm.TlsException;
import io.dask4j.comm.TlsMaterial;
import io.dask4j.comm.TlsOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import javax.net.ssl.SSLEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Loading key material: each unusable file is a {@link TlsException} naming it and what is wrong. */
class TlsOptionsTest {

    private static final SelfSignedTls CLUSTER = TestTls.cluster();

    @TempDir
    Path dir;

    @Test
    void aMissingKeyStoreIsNamed() {
        Path missing = dir.resolve("nowhere.p12");
        assertThatThrownBy(() -> TlsOptions.keyStores(missing, "x", null, null))
                .isInstanceOf(TlsException.class).hasMessageContaining(missing.toString()).hasMessageContaining("does not exist");
    }

    @Test
    void aWrongPasswordIsNamed() {
        assertThatThrownBy(() -> TlsOptions.keyStores(CLUSTER.keyStore(), "not the password", null, null))
                .isInstanceOf(TlsException.class).hasMessageContaining("wrong password")
                .hasMessageContaining(CLUSTER.keyStore().toString());
        assertThatThrownBy(() -> TlsOptions.keyStores(CLUSTER.keyStore(), CLUSTER.password(), CLUSTER.trustStore(),
                "not the password")).isInstanceOf(TlsException.class).hasMessageContaining("wrong password")
                .hasMessageContaining(CLUSTER.trustStore().toString());
    }

    @Test
    void anUnreadableKeyStoreIsNamed() throws Exception {
        Path locked = Files.copy(CLUSTER.keyStore(), dir.resolve("locked.p12"));
        Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("---------"));
        // root reads any file: then the permission cannot make it unreadable, and there is nothing to test
        org.junit.jupiter.api.Assumptions.assumeFalse(Files.isReadable(locked), "running as root");
        assertThatThrownBy(() -> TlsOptions.keyStores(locked, CLUSTER.password(), null, null))
                .isInstanceOf(TlsException.class).hasMessageContaining("not readable");
    }

    @Test
    void aFileThatIsNoKeyStoreIsNamed() throws Exception {
        Path text = Files.writeString(dir.resolve("notes.p12"), "not a key store");
        assertThatThrownBy(() -> TlsOptions.keyStores(text, "x", null, null))
                .isInstanceOf(TlsException.class).hasMessageContaining(text.toString());
    }

    @Test
    void aTrustStoreGivenAsKeyStoreIsNamed() {
        assertThatThrownBy(() -> TlsOptions.keyStores(CLUSTER.trustStore(), CLUSTER.password(), null, null))
                .isInstanceOf(TlsException.class).hasMessageContaining("holds no private key");
    }

    @Test
    void pemProblemsAreNamed() throws Exception {
        Path pkcs1 = Files.writeString(dir.resolve("rsa.pem"), "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n");
        assertThatThrownBy(() -> TlsOptions.pem(CLUSTER.certificate(), pkcs1, null))
                .isInstanceOf(TlsException.class).hasMessageContaining("PKCS#8").hasMessageContaining("openssl pkcs8");
        Path empty = Files.writeString(dir.resolve("empty.pem"), "");
        assertThatThrownBy(() -> TlsOptions.pem(empty, CLUSTER.privateKey(), null))
                .isInstanceOf(TlsException.class).hasMessageContaining(empty.toString());
        assertThatThrownBy(() -> TlsOptions.pem(CLUSTER.certificate(), TestTls.stranger().privateKey(), null))
                .isInstanceOf(TlsException.class).hasMessageContaining("does not go with");
        assertThatThrownBy(() -> new TlsMaterial.Pem(CLUSTER.certificate(), null, null))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void onlyTls13WithStrongSuitesIsOffered() {
        TlsOptions tls = TlsOptions.of(CLUSTER.keyStores());
        for (SSLEngine engine : new SSLEngine[] {tls.clientEngine("localhost", 1), tls.serverEngine()}) {
            assertThat(engine.getEnabledProtocols()).containsExactly("TLSv1.3");
            assertThat(Arrays.asList(engine.getEnabledCipherSuites())).isNotEmpty()
                    .allSatisfy(suite -> assertThat(suite).matches("TLS_(AES_(128|256)_GCM|CHACHA20_POLY1305)_SHA(256|384)"));
        }
        assertThat(tls.clientEngine("localhost", 1).getSSLParameters().getEndpointIdentificationAlgorithm()).isEqualTo("HTTPS");
        assertThat(tls.withHostnameVerification(false).clientEngine("localhost", 1).getSSLParameters()
                .getEndpointIdentificationAlgorithm()).isNull();
        assertThat(tls.withMutualAuth(true).serverEngine().getNeedClientAuth()).isTrue();
    }

    @Test
    void passwordsStayOutOfDescriptions() {
        TlsOptions tls = TlsOptions.of(CLUSTER.keyStores());
        assertThat(tls.toString()).doesNotContain(CLUSTER.password());
        assertThat(CLUSTER.toString()).doesNotContain(CLUSTER.password());
    }
}
