package io.dask4j.comm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Authenticated by default: which listeners need a secret, which secrets are accepted, and the explicit opt-out. */
class AuthenticationDefaultsTest {

    private final CommOptions none = CommOptions.fromEnvironment(Map.of());

    @Test
    void aTcpListenerRefusesToStartWithoutASecret() {
        assertThatThrownBy(() -> Comms.listen(Address.tcp("127.0.0.1", 0), none, Comm::abort))
                .isInstanceOf(AuthenticationException.class).hasMessageContaining("without a secret")
                .hasMessageContaining(CommOptions.SECRET_ENV).hasMessageContaining("insecure");
    }

    @Test
    void aTcpListenerStartsWithASecretOrWithTheExplicitOptOut() {
        Comms.listen(Address.tcp("127.0.0.1", 0), none.withGeneratedSecret(), Comm::abort).stop();
        Comms.listen(Address.tcp("127.0.0.1", 0), none.withInsecureNoAuth(true), Comm::abort).stop();
    }

    @Test
    void aListenerOnlyThisProcessCanReachNeedsNoSecret() {
        Comms.listen(Address.inproc("no-secret-needed"), none, Comm::abort).stop();
    }

    @Test
    void secretsShorterThan128BitsAreRefusedWithAClearError() {
        assertThatThrownBy(() -> none.withSecret("fifteen-chars!!")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("120 bits").hasMessageContaining("at least 128");
        assertThat(none.withSecret("sixteen-chars!!!").hasSecret()).isTrue();
    }

    @Test
    void anEmptySecretNeverMeansNoAuthentication() {
        assertThatThrownBy(() -> none.withSecret("")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("empty");
        assertThatThrownBy(() -> CommOptions.fromEnvironment(Map.of(CommOptions.SECRET_ENV, "")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(CommOptions.SECRET_ENV)
                .hasMessageContaining("empty");
    }

    @Test
    void theEnvironmentsSecretIsUsedAsText() {
        CommOptions options = CommOptions.fromEnvironment(Map.of(CommOptions.SECRET_ENV, "a-secret-from-the-env"));
        assertThat(options.secret()).isEqualTo("a-secret-from-the-env".getBytes(StandardCharsets.UTF_8));
        assertThat(options.secretText()).isEqualTo("a-secret-from-the-env");
    }

    @Test
    void generatedSecretsAreLongFreshAndOnlyAddedWhereNoneIsGivenAndNoOptOut() {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            String secret = none.withGeneratedSecret().secretText();
            assertThat(secret.getBytes(StandardCharsets.UTF_8).length * 8).isGreaterThanOrEqualTo(256);
            seen.add(secret);
        }
        assertThat(seen).hasSize(100);
        CommOptions given = none.withSecret("given-secret-of-16+-bytes");
        assertThat(given.withGeneratedSecret()).isEqualTo(given);
        assertThat(none.withInsecureNoAuth(true).withGeneratedSecret().hasSecret()).isFalse();
    }

    @Test
    void theOptOutShowsInTheOptionsAndTheSecretDoesNot() {
        assertThat(none.withInsecureNoAuth(true).toString()).contains("insecureNoAuth");
        assertThat(none.withSecret("do-not-print-this-secret").toString()).doesNotContain("do-not-print-this-secret");
    }
}
