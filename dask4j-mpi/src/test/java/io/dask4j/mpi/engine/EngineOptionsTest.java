package io.dask4j.mpi.engine;

import io.dask4j.comm.config.ConfigSource;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EngineOptionsTest {

    @Test
    void defaultsParkAtMostOneMillisecondWhileBusyAndLongerOnlyWhenQuiet() {
        EngineOptions defaults = EngineOptions.defaults(ConfigSource.ofEnvironment(Map.of()), 8);
        assertThat(defaults.maxParkNanos()).isEqualTo(1_000_000);
        assertThat(defaults.deepParkNanos()).isGreaterThan(defaults.maxParkNanos());
        assertThat(defaults.callerSpinNanos()).isPositive();
        assertThat(defaults.pureSpin()).isFalse();
    }

    /**
     * Every idle default, in its unit, as the engine was tuned with: reading them through the settings registry must
     * change none (a micro/nanosecond slip or a lost default would change how an idle rank sleeps, unseen by timing).
     */
    @Test
    void theIdleDefaultsAreTheTunedValuesOnARoomyAndOnACrowdedNode() {
        EngineOptions roomy = EngineOptions.defaults(ConfigSource.ofEnvironment(Map.of("MPI_LOCALNRANKS", "2")), 2);
        assertThat(roomy).isEqualTo(new EngineOptions(50, 100_000L, 1_000L, 1_000_000L, 1_000_000_000L, 20_000_000L,
                false, 200_000L, EngineOptions.EAGER_BYTES, 50_000_000L, 5_000_000L, 5_000_000L));
        EngineOptions crowded = EngineOptions.defaults(ConfigSource.ofEnvironment(Map.of("MPI_LOCALNRANKS", "3")), 2);
        assertThat(crowded).isEqualTo(new EngineOptions(0, 0L, 1_000L, 1_000_000L, 1_000_000_000L, 20_000_000L,
                false, 0L, EngineOptions.EAGER_BYTES, 50_000_000L, 0L, 5_000_000L));
    }

    @Test
    void aLowerParkCapLowersTheFirstParkToo() {
        EngineOptions capped = EngineOptions.defaults(ConfigSource.ofEnvironment(Map.of()), 8).withMaxPark(Duration.ofNanos(500));
        assertThat(capped.minParkNanos()).isEqualTo(500);
        assertThat(capped.maxParkNanos()).isEqualTo(500);
    }

    @Test
    void inconsistentOptionsAreRejectedWithTheirValues() {
        assertThatThrownBy(() -> EngineOptions.defaults(ConfigSource.ofEnvironment(Map.of()), 8).withDeepIdle(Duration.ofSeconds(1), Duration.ofNanos(10)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("deepParkNanos=10");
    }

    @Test
    void moreRanksOnTheNodeThanCoresTurnsBusyWaitingOff() {
        EngineOptions crowded = EngineOptions.defaults(ConfigSource.ofEnvironment(Map.of("OMPI_COMM_WORLD_LOCAL_SIZE", "5")), 2);
        assertThat(crowded.spins()).isZero();
        assertThat(crowded.yieldNanos()).isZero();
        assertThat(crowded.callerSpinNanos()).isZero();
        assertThat(crowded.settleNanos()).isZero();
        assertThat(EngineOptions.defaults(ConfigSource.ofEnvironment(Map.of("MPI_LOCALNRANKS", "5")), 2).callerSpinNanos()).isZero();
    }

    @Test
    void aRankPerCoreKeepsSpinningAndCallerRuns() {
        EngineOptions roomy = EngineOptions.defaults(ConfigSource.ofEnvironment(Map.of("OMPI_COMM_WORLD_LOCAL_SIZE", "2")), 2);
        assertThat(roomy.spins()).isPositive();
        assertThat(roomy.callerSpinNanos()).isPositive();
        assertThat(roomy.settleNanos()).isEqualTo(5_000_000L);
        assertThat(EngineOptions.localRanks(Map.of())).isEqualTo(1);
        assertThat(EngineOptions.localRanks(Map.of("MPI_LOCALNRANKS", "x"))).isEqualTo(1);
    }

    @Test
    void nodeCoresCountLinuxCpuListsNotTheAffinityMask() {
        assertThat(EngineOptions.onlineCpus("0-1")).isEqualTo(2);
        assertThat(EngineOptions.onlineCpus("0-3,8,10-11")).isEqualTo(7);
        assertThat(EngineOptions.onlineCpus("0")).isEqualTo(1);
        assertThat(EngineOptions.nodeCores()).isGreaterThanOrEqualTo(Runtime.getRuntime().availableProcessors());
    }

    @Test
    void defaultEagerSizeIsBelowTheEagerLimitsOfOpenMpiAndMpichWithRoomForTheirHeaders() {
        // A larger "eager" message may not have arrived when matched, and its MPI_Mrecv (a critical downcall)
        // would then hold the whole JVM off safepoints until the sender progressed.
        int eager = EngineOptions.defaults(ConfigSource.ofEnvironment(Map.of()), 2).eagerBytes();
        assertThat(eager).isEqualTo(EngineOptions.EAGER_BYTES);
        assertThat(eager + EngineOptions.OPEN_MPI_MEASURED_HEADER_BYTES).isLessThan(EngineOptions.OPEN_MPI_SHM_EAGER_LIMIT);
        assertThat(eager).isLessThanOrEqualTo(4032).isLessThan(EngineOptions.MPICH_SHM_EAGER_CELL);
    }

    @Test
    void settingsOverrideTheDefaultsAndAnOversubscribedNodeStillSeesThem() {
        ConfigSource source = ConfigSource.of(Map.of("dask4j.mpi.spins", "3", "dask4j.mpi.maxParkMicros", "200"),
                Map.of("OMPI_COMM_WORLD_LOCAL_SIZE", "5"));
        EngineOptions options = EngineOptions.defaults(source, 2);
        assertThat(options.spins()).isEqualTo(3);
        assertThat(options.maxParkNanos()).isEqualTo(200_000);
        assertThat(options.callerSpinNanos()).isZero();
    }
}
