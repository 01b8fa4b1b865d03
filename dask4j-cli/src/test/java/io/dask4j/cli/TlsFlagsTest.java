package io.dask4j.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dask4j.comm.CommOptions;
import io.dask4j.comm.SelfSignedTls;
import io.dask4j.comm.TlsException;
import io.dask4j.comm.TlsMaterial;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How the --tls-* options and the DASK4J_TLS_* variables combine into a command's TLS settings. */
class TlsFlagsTest {

    @TempDir
    static Path dir;
    private static SelfSignedTls certificate;

    private final CommOptions base = CommOptions.fromEnvironment(Map.of());

    @BeforeAll
    static void makeCertificate() {
        certificate = SelfSignedTls.create(dir.resolve("certificate"));
    }

    @Test
    void noFlagsAndNoVariablesMeanNoTls() {
        assertThat(new TlsFlags().apply(base, Map.of()).tls()).isNull();
    }

    @Test
    void keyStoreFlagsTakeTheirPasswordsFromTheEnvironment() {
        TlsFlags flags = new TlsFlags();
        flags.keyStore = certificate.keyStore();
        flags.trustStore = certificate.trustStore();
        flags.mutual = true;
        CommOptions options = flags.apply(base, Map.of("DASK4J_TLS_KEYSTORE_PASSWORD", certificate.password(),
                "DASK4J_TLS_TRUSTSTORE_PASSWORD", certificate.password()));
        assertThat(options.tls().material()).isEqualTo(certificate.keyStores());
        assertThat(options.tls().mutualAuth()).isTrue();
        assertThat(options.tls().verifyHostname()).isTrue();
    }

    @Test
    void pemFlagsReplaceKeyStoresFromTheEnvironment() {
        TlsFlags flags = new TlsFlags();
        flags.certificate = certificate.certificate();
        flags.privateKey = certificate.privateKey();
        flags.caBundle = certificate.certificate();
        flags.noHostnameCheck = true;
        CommOptions options = flags.apply(base, Map.of("DASK4J_TLS_KEYSTORE", "/elsewhere/node.p12"));
        assertThat(options.tls().material()).isEqualTo(certificate.pemFiles());
        assertThat(options.tls().verifyHostname()).isFalse();
    }

    @Test
    void theEnvironmentAloneIsEnough() {
        CommOptions options = new TlsFlags().apply(base, Map.of("DASK4J_TLS_CERT", certificate.certificate().toString(),
                "DASK4J_TLS_KEY", certificate.privateKey().toString(), "DASK4J_TLS_MUTUAL", "true",
                "DASK4J_TLS_SECRET_HANDSHAKE", "false"));
        assertThat(options.tls().material()).isInstanceOf(TlsMaterial.Pem.class);
        assertThat(options.tls().provesMembership()).isTrue();
    }

    @Test
    void mistakesAreNamed() {
        TlsFlags onlyMutual = new TlsFlags();
        onlyMutual.mutual = true;
        assertThatThrownBy(() -> onlyMutual.apply(base, Map.of())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("need key material");
        assertThatThrownBy(() -> new TlsFlags().apply(base, Map.of("DASK4J_TLS_KEYSTORE", "/a.p12", "DASK4J_TLS_CERT",
                "/b.pem"))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not both");
        TlsFlags wrongPassword = new TlsFlags();
        wrongPassword.keyStore = certificate.keyStore();
        assertThatThrownBy(() -> wrongPassword.apply(base, Map.of("DASK4J_TLS_KEYSTORE_PASSWORD", "guess")))
                .isInstanceOf(TlsException.class).hasMessageContaining("wrong password");
    }
}
