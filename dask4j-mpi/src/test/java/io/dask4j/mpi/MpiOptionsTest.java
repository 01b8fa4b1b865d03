package io.dask4j.mpi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dask4j.comm.config.ConfigSource;
import io.dask4j.mpi.binding.MpiAbi;
import io.dask4j.mpi.binding.MpichAbi;
import io.dask4j.mpi.comm.MpiTransportOptions;
import io.dask4j.mpi.engine.EngineOptions;
import io.dask4j.mpi.fake.FakeMpiWorld;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class MpiOptionsTest {

    private static final MpiAbi OPEN_MPI = FakeMpiWorld.ABI;
    private static final MpiAbi MPICH = new MpichAbi();

    @Test
    void withoutSettingsTheyAreTheBuiltInOptionsAndTheGuardIsWhereTheLibraryNeedsIt() {
        ConfigSource none = ConfigSource.ofEnvironment(Map.of("MPI_LOCALNRANKS", "1"));
        MpiOptions options = MpiOptions.fromSettings(none);
        assertThat(options.library()).isNull();
        assertThat(options.doorbells()).isTrue();
        assertThat(options.openMpiIdleYield()).isEqualTo(MpiOptions.IdleYield.ADAPTIVE);
        assertThat(options.peerSendWindow()).isEmpty();
        assertThat(options.engine()).isEqualTo(EngineOptions.defaults(none));
        assertThat(options.transportFor(OPEN_MPI).peerSendWindow()).isEqualTo(MpiTransportOptions.OPEN_MPI_PEER_SEND_WINDOW);
        assertThat(options.transportFor(MPICH).peerSendWindow()).isZero();
        for (MpiAbi abi : List.of(OPEN_MPI, MPICH)) {
            assertThat(options.transportFor(abi)).isEqualTo(MpiTransportOptions.fromSettings(abi, none));
        }
    }

    @Test
    void theSettingsOfTheSourceAreReadOnceIntoTheRecord() {
        ConfigSource source = ConfigSource.of(Map.of("dask4j.mpi.lib", "/opt/mpi/lib/libmpi.so",
                        "dask4j.mpi.doorbells", "false", "dask4j.mpi.openMpiIdleYield", "TRUE",
                        "dask4j.mpi.peerSendWindow", "100", "dask4j.mpi.inboxMiB", "2", "dask4j.mpi.spins", "7"),
                Map.of("DASK4J_MPI_LIB", "libmpich.so.12"));
        MpiOptions options = MpiOptions.fromSettings(source);
        assertThat(options.library()).as("the property wins over the variable").isEqualTo("/opt/mpi/lib/libmpi.so");
        assertThat(options.doorbells()).isFalse();
        assertThat(options.openMpiIdleYield()).isEqualTo(MpiOptions.IdleYield.ON);
        assertThat(options.peerSendWindow()).isEqualTo(OptionalInt.of(100));
        assertThat(options.engine().spins()).isEqualTo(7);
        for (MpiAbi abi : List.of(OPEN_MPI, MPICH)) {
            assertThat(options.transportFor(abi).peerSendWindow()).as("a window set explicitly holds for any library")
                    .isEqualTo(100);
            assertThat(options.transportFor(abi)).isEqualTo(MpiTransportOptions.fromSettings(abi, source));
        }
        assertThat(MpiOptions.fromSettings(ConfigSource.ofEnvironment(Map.of("DASK4J_MPI_LIB", " libmpich.so.12 ")))
                .library()).isEqualTo("libmpich.so.12");
    }

    @Test
    void aMistypedValueIsAnErrorNamingTheSetting() {
        assertThatThrownBy(() -> MpiOptions.fromSettings(ConfigSource.ofProperties(Map.of("dask4j.mpi.openMpiIdleYield", "yes"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("dask4j.mpi.openMpiIdleYield");
        assertThatThrownBy(() -> MpiOptions.fromSettings(ConfigSource.ofProperties(Map.of("dask4j.mpi.peerSendWindow", "-1"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("dask4j.mpi.peerSendWindow must be >= 0")
                .hasMessageContaining("-1");
    }

    @Test
    void theWithersChangeOneComponent() {
        MpiOptions base = MpiOptions.fromSettings(ConfigSource.ofEnvironment(Map.of()));
        MpiOptions changed = base.withLibrary("libmpi.so.40").withDoorbells(false).withPeerSendWindow(0)
                .withOpenMpiIdleYield(MpiOptions.IdleYield.OFF);
        assertThat(changed.library()).isEqualTo("libmpi.so.40");
        assertThat(changed.doorbells()).isFalse();
        assertThat(changed.transportFor(OPEN_MPI).peerSendWindow()).isZero();
        assertThat(changed.openMpiIdleYield()).isEqualTo(MpiOptions.IdleYield.OFF);
        assertThat(changed.engine()).isEqualTo(base.engine());
        assertThat(changed.transport()).isEqualTo(base.transport());
    }
}
