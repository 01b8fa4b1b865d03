package io.dask4j.mpi.comm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dask4j.comm.config.ConfigSource;
import io.dask4j.mpi.binding.MpiAbi;
import io.dask4j.mpi.binding.MpichAbi;
import io.dask4j.mpi.fake.FakeMpiWorld;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MpiTransportOptionsTest {

    @Test
    void withoutSettingsTheyAreTheBuiltInLimitsWithTheGuardOnlyWhereTheAbiNeedsIt() {
        ConfigSource none = ConfigSource.of(Map.of(), Map.of());
        for (MpiAbi abi : List.of(FakeMpiWorld.ABI, new MpichAbi())) {
            MpiTransportOptions options = MpiTransportOptions.fromSettings(abi, none);
            assertThat(options.withPeerSendWindow(MpiTransportOptions.defaults().peerSendWindow()))
                    .isEqualTo(MpiTransportOptions.defaults());
            assertThat(options.peerSendWindow()).isEqualTo(abi.needsPeerSendOrder() ? MpiTransportOptions.OPEN_MPI_PEER_SEND_WINDOW : 0);
        }
    }

    @Test
    void settingsInMebibytesBecomeBytesAndAReadWindowBelowTwoBatchesIsRaised() {
        ConfigSource source = ConfigSource.ofProperties(Map.of("dask4j.mpi.inboxMiB", "2", "dask4j.mpi.readWindow", "1",
                "dask4j.mpi.blockingReceives", "true"));
        MpiTransportOptions options = MpiTransportOptions.fromSettings(FakeMpiWorld.ABI, source);
        assertThat(options.inboxBytes()).isEqualTo(2L << 20);
        assertThat(options.readWindow()).isEqualTo(2 * MpiComm.CREDIT_BATCH);
        assertThat(options.blockingReceives()).isTrue();
    }

    @Test
    void aMistypedNumberIsAnErrorNotTheDefault() {
        assertThatThrownBy(() -> MpiTransportOptions.fromSettings(FakeMpiWorld.ABI,
                ConfigSource.ofProperties(Map.of("dask4j.mpi.inboxMiB", "1g"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("dask4j.mpi.inboxMiB=1g");
    }
}
