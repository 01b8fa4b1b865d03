package io.dask4j.mpi.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Real mpirun jobs under Open MPI and MPICH: the binding and the mpi backend between ranks, the comm
 * conformance suite over mpi, a singleton rank started without a launcher, and the error for a binding
 * that loaded another MPI than the launcher's. Each job is killed if it outlives its timeout.
 */
class MpiCommJobsTest {

    @ParameterizedTest
    @EnumSource(MpiJob.Impl.class)
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void threeRanksTalkToEachOtherAndThemselvesThroughTheMpiBackend(MpiJob.Impl impl) throws Exception {
        MpiJob.assumeInstalled(impl);
        MpiJob.Result result = MpiJob.run(impl, 3, Map.of(), 120, CrossRankMain.class);
        assertThat(result.output()).as(result.output())
                .contains("LIBRARY " + impl.library, "RANK 0 BINDING OK", "RANK 1 BINDING OK", "RANK 2 BINDING OK")
                .contains("RANK 0 OK", "RANK 1 OK", "RANK 2 OK").doesNotContain("FAILED");
        assertThat(result.exitCode()).as(result.output()).isZero();
    }

    @ParameterizedTest
    @EnumSource(MpiJob.Impl.class)
    @Timeout(value = 200, unit = TimeUnit.SECONDS)
    void theCommConformanceSuitePassesOverMpi(MpiJob.Impl impl) throws Exception {
        MpiJob.assumeInstalled(impl);
        MpiJob.Result result = MpiJob.run(impl, 2, Map.of(), 180, ConformanceMain.class);
        assertThat(result.output()).as(result.output()).containsPattern("CONFORMANCE found=\\d+ succeeded=\\d+ failed=0");
        assertThat(result.exitCode()).as(result.output()).isZero();
    }

    @ParameterizedTest
    @EnumSource(MpiJob.Impl.class)
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void aRankThatDoesNotReadStallsItsFlooderButKeepsServingOtherRanks(MpiJob.Impl impl) throws Exception {
        MpiJob.assumeInstalled(impl);
        MpiJob.Result result = MpiJob.run(impl, 3, Map.of(), 120, BackPressureMain.class);
        assertThat(result.output()).as(result.output()).contains("RANK 0 STALLED AFTER", "RANK 0 OK", "RANK 1 OK", "RANK 2 OK")
                .doesNotContain("FAILED");
        assertThat(result.exitCode()).as(result.output()).isZero();
    }

    @ParameterizedTest
    @EnumSource(MpiJob.Impl.class)
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void sleepingEnginesAreWokenByTheirNeighboursDoorbells(MpiJob.Impl impl) throws Exception {
        MpiJob.assumeInstalled(impl);
        MpiJob.Result result = MpiJob.run(impl, 3, Map.of(), 120, DoorbellMain.class, "on");
        assertThat(result.output()).as(result.output()).contains("RANK 0 OK", "RANK 1 OK", "RANK 2 OK")
                .contains("RANK 1 DOORBELLS ranks=3").doesNotContain("FAILED");
        assertThat(result.exitCode()).as(result.output()).isZero();
    }

    @ParameterizedTest
    @EnumSource(MpiJob.Impl.class)
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void withDoorbellsTurnedOffTheEnginesPollAndStillDeliver(MpiJob.Impl impl) throws Exception {
        MpiJob.assumeInstalled(impl);
        MpiJob.Result result = MpiJob.run(impl, 3, Map.of(), 120, DoorbellMain.class, "off");
        assertThat(result.output()).as(result.output()).contains("RANK 0 OK", "RANK 1 OK", "RANK 2 OK")
                .contains("RANK 1 DOORBELLS ranks=0 sleeps=0").doesNotContain("FAILED");
        assertThat(result.exitCode()).as(result.output()).isZero();
    }

    @ParameterizedTest
    @EnumSource(MpiJob.Impl.class)
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aRankStartedWithoutALauncherRunsAsASingleton(MpiJob.Impl impl) throws Exception {
        MpiJob.Result result = singleton(impl, SingletonMain.class);
        assertThat(result.output()).as(result.output()).contains("SINGLETON 0/1 self OK " + impl.library)
                .contains("IDLE-YIELD-SWITCH " + (impl == MpiJob.Impl.OPENMPI));
        assertThat(result.exitCode()).as(result.output()).isZero();
    }

    @ParameterizedTest
    @EnumSource(MpiJob.Impl.class)
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void anErrorInTheProgressEngineFailsItsCommsInsteadOfLeavingReadersWaiting(MpiJob.Impl impl) throws Exception {
        MpiJob.Result result = singleton(impl, EngineFailureMain.class);
        assertThat(result.output()).as(result.output()).contains("ECHO echo").contains("READ THREW")
                .contains("ENGINE FAILED java.lang.IllegalStateException: the MPI progress engine failed: "
                        + "java.lang.OutOfMemoryError: simulated")
                .doesNotContain("READ HUNG").doesNotContain("READ RETURNED");
        assertThat(result.exitCode()).as(result.output()).isZero();
    }

    /** Runs {@code main} as one rank started without a launcher (an MPI singleton) of {@code impl}. */
    private static MpiJob.Result singleton(MpiJob.Impl impl, Class<?> main) throws Exception {
        MpiJob.assumeInstalled(impl);
        return MpiJob.runProcess(MpiJob.javaCommand(main), Map.of("DASK4J_MPI_LIB", impl.library), 60);
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aBindingThatLoadedAnotherMpiThanTheLaunchersSaysSo() throws Exception {
        MpiJob.assumeInstalled(MpiJob.Impl.OPENMPI);
        MpiJob.assumeInstalled(MpiJob.Impl.MPICH);
        MpiJob.Result result = MpiJob.run(MpiJob.Impl.OPENMPI, 2, Map.of("DASK4J_MPI_LIB", "libmpich.so.12"), 60,
                SingletonMain.class);
        assertThat(result.output()).as(result.output())
                .contains("ERROR MPI world has 1 rank but the launcher started 2 (OMPI_COMM_WORLD_SIZE)")
                .contains("libmpich.so.12").contains("DASK4J_MPI_LIB");
        assertThat(result.exitCode()).isNotZero();
    }
}
