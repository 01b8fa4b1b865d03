package io.dask4j.launcher;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class OpenMpiArgumentsTest {
    private static final Map<String, String> OPEN_MPI = Map.of("OMPI_COMM_WORLD_SIZE", "4");

    @Test
    void theWorkingDirectoryOpenMpiPrependsAfterAnArgumentContainingCpIsRemoved() {
        String[] seen = {"--protocol", "tcp", "/work:--nthreads", "2", "--protocol=tcp", "/usr/share/java/mpi.jar:/work:x"};

        assertThat(OpenMpiArguments.repair(seen, OPEN_MPI, "/work"))
                .containsExactly("--protocol", "tcp", "--nthreads", "2", "--protocol=tcp", "x");
    }

    @Test
    void argumentsAreLeftAloneOutsideOpenMpiOrWhenNothingWasPrepended() {
        String[] args = {"tcp", "/work:kept"};

        assertThat(OpenMpiArguments.repair(args, Map.of("PMI_RANK", "0"), "/work")).containsExactly("tcp", "/work:kept");
        assertThat(OpenMpiArguments.repair(new String[] {"tcp", "--nthreads"}, OPEN_MPI, "/work")).containsExactly("tcp", "--nthreads");
        assertThat(OpenMpiArguments.repair(new String[] {"x", "/work:y"}, OPEN_MPI, "/work")).containsExactly("x", "/work:y");
    }
}
