package io.dask4j.mpi.binding;

import org.junit.jupiter.api.Test;

import io.dask4j.comm.config.ConfigSource;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MpiLibraryTest {

    @Test
    void theSystemPropertyOverrideWinsOverTheEnvironmentVariable() {
        assertThat(MpiLibrary.candidates(ConfigSource.of(Map.of(MpiLibrary.LIB_PROPERTY, "/opt/mpi/lib/libmpi.so"),
                Map.of(MpiLibrary.LIB_ENV, "libmpich.so.12"))))
                .containsExactly("/opt/mpi/lib/libmpi.so");
        assertThat(MpiLibrary.candidates(ConfigSource.ofEnvironment(Map.of(MpiLibrary.LIB_ENV, " libmpich.so.12 "))))
                .containsExactly("libmpich.so.12");
    }

    @Test
    void openMpisLauncherPutsOpenMpiFirstAndHydraPutsMpichFirst() {
        assertThat(MpiLibrary.candidates(ConfigSource.ofEnvironment(Map.of("OMPI_COMM_WORLD_SIZE", "4"))).getFirst()).isEqualTo("libmpi.so.40");
        assertThat(MpiLibrary.candidates(ConfigSource.ofEnvironment(Map.of("PMI_RANK", "0"))).getFirst()).isEqualTo("libmpich.so.12");
        assertThat(MpiLibrary.candidates(ConfigSource.ofEnvironment(Map.of()))).contains("libmpi.so.40", "libmpich.so.12");
    }

    @Test
    void noLibraryFoundNamesWhatWasTriedAndHowToOverride() {
        assertThatThrownBy(() -> MpiLibrary.open(List.of("libdask4j-no-such-mpi.so.7", "/nowhere/libmpi.so")))
                .isInstanceOf(MpiException.class)
                .hasMessageContaining("no MPI library found")
                .hasMessageContaining("libdask4j-no-such-mpi.so.7")
                .hasMessageContaining("/nowhere/libmpi.so")
                .hasMessageContaining(MpiLibrary.LIB_ENV)
                .hasMessageContaining(MpiLibrary.LIB_PROPERTY);
    }

    @Test
    void aLibraryWithoutMpiIsNotMistakenForOne() {
        assertThatThrownBy(() -> MpiLibrary.open(List.of("libz.so.1")))
                .isInstanceOf(MpiException.class)
                .hasMessageContaining("libz.so.1 (loaded, but it has no MPI_Init_thread");
    }
}
