package io.dask4j.comm.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SettingTest {

    private static ConfigSource properties(String name, String value) {
        return ConfigSource.ofProperties(Map.of(name, value));
    }

    @Test
    void anUnsetOrBlankSettingGivesTheCallersFallback() {
        ConfigSource none = ConfigSource.of(Map.of(), Map.of());
        assertThat(Settings.SPINS.intValue(none, 50)).isEqualTo(50);
        assertThat(Settings.SPINS.intValue(properties("dask4j.mpi.spins", "  "), 7)).isEqualTo(7);
        assertThat(Settings.DOORBELLS.booleanValue(none, true)).isTrue();
        assertThat(Settings.LOG_DIR.stringValue(none, "logs")).isEqualTo("logs");
    }

    @Test
    void aSetValueIsReadAsItsType() {
        assertThat(Settings.SPINS.intValue(properties("dask4j.mpi.spins", " 3 "), 50)).isEqualTo(3);
        assertThat(Settings.MAX_PARK_MICROS.longValue(properties("dask4j.mpi.maxParkMicros", "200"), 1000)).isEqualTo(200);
        assertThat(Settings.PURE_SPIN.booleanValue(properties("dask4j.mpi.pureSpin", "TRUE"), false)).isTrue();
        assertThat(Settings.OPEN_MPI_IDLE_YIELD.choiceValue(properties("dask4j.mpi.openMpiIdleYield", "False"),
                Settings.OPEN_MPI_IDLE_YIELD_CHOICES, "adaptive")).isEqualTo("false");
    }

    @Test
    void aPropertyIsNotReadFromTheEnvironmentNorAVariableFromTheProperties() {
        ConfigSource crossed = ConfigSource.of(Map.of("DASK4J_LOG_DIR", "x"), Map.of("dask4j.mpi.spins", "3"));
        assertThat(Settings.SPINS.intValue(crossed, 50)).isEqualTo(50);
        assertThat(Settings.LOG_DIR.stringValue(crossed, "logs")).isEqualTo("logs");
    }

    @Test
    void aValueThatDoesNotParseIsAnErrorNamingTheSettingNotTheDefault() {
        assertThatThrownBy(() -> Settings.SPINS.intValue(properties("dask4j.mpi.spins", "fifty"), 50))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-Ddask4j.mpi.spins=fifty is not an integer");
        assertThatThrownBy(() -> Settings.DOORBELLS.booleanValue(properties("dask4j.mpi.doorbells", "no"), true))
                .hasMessageContaining("-Ddask4j.mpi.doorbells=no is not true or false");
        assertThatThrownBy(() -> Settings.OPEN_MPI_IDLE_YIELD.choiceValue(properties("dask4j.mpi.openMpiIdleYield", "sometimes"),
                Settings.OPEN_MPI_IDLE_YIELD_CHOICES, "adaptive"))
                .hasMessageContaining("is not one of adaptive, true, false");
    }

    @Test
    void exactKeepsABlankValueSoThatAnEmptySecretIsNotMistakenForNone() {
        ConfigSource blank = ConfigSource.ofEnvironment(Map.of("DASK4J_SECRET", ""));
        assertThat(Settings.SECRET.exact(blank)).isEmpty();
        assertThat(Settings.SECRET.raw(blank)).isNull();
    }

    @Test
    void namesAreUniqueAndFollowTheirKindsPrefix() {
        List<String> names = Settings.ALL.stream().map(Setting::name).toList();
        assertThat(names).doesNotHaveDuplicates();
        assertThatThrownBy(() -> new Setting("mpi.spins", Setting.Kind.PROPERTY, Setting.Type.INT, "1", "", "x",
                Setting.Section.MPI)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Setting("dask4j.x", Setting.Kind.ENVIRONMENT, Setting.Type.INT, "1", "", "x",
                Setting.Section.MPI)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void everySettingConstantIsInTheCatalog() throws IllegalAccessException {
        for (var field : Settings.class.getFields()) {
            if (field.getType() == Setting.class) {
                assertThat(Settings.ALL).as(field.getName()).contains((Setting) field.get(null));
            }
        }
    }
}
