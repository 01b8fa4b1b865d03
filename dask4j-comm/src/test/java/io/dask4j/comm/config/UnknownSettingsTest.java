package io.dask4j.comm.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class UnknownSettingsTest {

    @Test
    void aMistypedPropertyNamesTheClosestKnownOne() {
        ConfigSource source = ConfigSource.ofProperties(Map.of("dask4j.mpi.inboxMib", "1", "dask4j.mpi.spins", "3",
                "java.home", "/x"));
        assertThat(UnknownSettings.messages(source)).containsExactly("unknown system property -Ddask4j.mpi.inboxMib: "
                + "dask4j reads no such setting; did you mean -Ddask4j.mpi.inboxMiB? (all settings: docs/configuration.md)");
    }

    @Test
    void aMistypedVariableNamesTheClosestKnownOne() {
        ConfigSource source = ConfigSource.ofEnvironment(Map.of("DASK4J_SECRETS", "x", "DASK4J_LOG_DIR", "l", "PATH", "/bin"));
        assertThat(UnknownSettings.messages(source)).singleElement().asString()
                .startsWith("unknown environment variable DASK4J_SECRETS")
                .contains("did you mean DASK4J_SECRET?");
    }

    @Test
    void knownAndForeignNamesGiveNoWarning() {
        assertThat(UnknownSettings.messages(ConfigSource.of(Map.of("dask4j.mpi.pureSpin", "true", "user.dir", "/"),
                Map.of("DASK4J_LOG_LEVEL", "INFO", "HOME", "/root")))).isEmpty();
    }

    @Test
    void onlyTheFirstCheckOfAProcessWarns() {
        UnknownSettings once = new UnknownSettings();
        List<String> warnings = new ArrayList<>();
        ConfigSource source = ConfigSource.ofProperties(Map.of("dask4j.mpi.spin", "3"));
        once.checkOnce(source, warnings::add);
        once.checkOnce(source, warnings::add);
        assertThat(warnings).singleElement().asString().contains("did you mean -Ddask4j.mpi.spins?");
    }

    @Test
    void levenshteinCountsEdits() {
        assertThat(UnknownSettings.levenshtein("kitten", "sitting")).isEqualTo(3);
        assertThat(UnknownSettings.levenshtein("", "abc")).isEqualTo(3);
        assertThat(UnknownSettings.levenshtein("same", "same")).isZero();
        assertThat(UnknownSettings.closest("dask4j.mpi.maxparkmicros", List.of("dask4j.mpi.deepParkMicros",
                "dask4j.mpi.maxParkMicros"))).isEqualTo("dask4j.mpi.maxParkMicros");
    }
}
