package io.dask4j.launcher;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LaunchEnvironmentTest {

    @Test
    void openMpisVariablesAreReadFirst() {
        LaunchEnvironment env = LaunchEnvironment.detect(Map.of("OMPI_COMM_WORLD_RANK", "3", "OMPI_COMM_WORLD_SIZE", "5",
                "SLURM_PROCID", "0", "SLURM_NTASKS", "8"));

        assertThat(env.launcher()).isEqualTo("Open MPI (mpirun)");
        assertThat(env.rank()).hasValue(3);
        assertThat(env.size()).hasValue(5);
    }

    @Test
    void hydraSetsPmiRankAndSize() {
        LaunchEnvironment env = LaunchEnvironment.detect(Map.of("PMI_RANK", "2", "PMI_SIZE", "4"));

        assertThat(env.launcher()).isEqualTo("Hydra/PMI (mpiexec)");
        assertThat(env.rankOrZero()).isEqualTo(2);
        assertThat(env.size()).hasValue(4);
    }

    @Test
    void srunWithPmixTakesTheSizeFromSlurmsStepVariables() {
        LaunchEnvironment env = LaunchEnvironment.detect(Map.of("PMIX_RANK", "6", "SLURM_PROCID", "6",
                "SLURM_STEP_NUM_TASKS", "16", "SLURM_NTASKS", "32"));

        assertThat(env.launcher()).isEqualTo("Slurm srun with PMIx");
        assertThat(env.rank()).hasValue(6);
        assertThat(env.size()).hasValue(16);
    }

    @Test
    void plainSrunIsReadFromSlurmProcid() {
        LaunchEnvironment env = LaunchEnvironment.detect(Map.of("SLURM_PROCID", "1", "SLURM_NTASKS", "4"));

        assertThat(env.launcher()).isEqualTo("Slurm (srun)");
        assertThat(env.rank()).hasValue(1);
        assertThat(env.size()).hasValue(4);
    }

    @Test
    void aProcessStartedAloneHasNoLauncherAndRankZero() {
        LaunchEnvironment env = LaunchEnvironment.detect(Map.of());

        assertThat(env.launcher()).isEqualTo("none");
        assertThat(env.rankOrZero()).isZero();
        assertThat(env.check(0, 1, "libmpi.so.40")).isNull();
    }

    @Test
    void anMpiThatSeesOneRankUnderALauncherOfFourIsTheWrongLibrary() {
        LaunchEnvironment env = LaunchEnvironment.detect(Map.of("PMI_RANK", "0", "PMI_SIZE", "4"));

        assertThatThrownBy(() -> env.check(0, 1, "libmpi.so.40")).isInstanceOf(LauncherException.class)
                .hasMessageContaining("says 4 ranks but MPI (libmpi.so.40) sees 1").hasMessageContaining("DASK4J_MPI_LIB");
    }

    @Test
    void aSlurmSizeThatDiffersFromMpisIsOnlyAWarning() {
        LaunchEnvironment env = LaunchEnvironment.detect(Map.of("SLURM_PROCID", "0", "SLURM_NTASKS", "8"));

        assertThat(env.check(0, 1, "libmpich.so.12")).contains("going by MPI");
    }
}
