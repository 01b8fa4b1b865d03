package io.dask4j.runtime.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.dask4j.comm.Address;
import io.dask4j.comm.serialize.ClassAllowList;
import io.dask4j.runtime.loop.IdleOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class WorkerConfigTest {

    private static final Address SCHEDULER = Address.tcp("127.0.0.1", 8786);

    @Test
    void aWorkerWaitsAsTheDefaultsSayUnlessItsConfigSaysOtherwise() {
        WorkerConfig config = WorkerConfig.connectingTo(SCHEDULER);
        assertThat(config.idle()).isEqualTo(IdleOptions.defaults());
        IdleOptions quick = new IdleOptions(Duration.ZERO, Duration.ofNanos(1_000), Duration.ZERO);
        WorkerConfig changed = config.withIdle(quick);
        assertThat(changed.idle()).isEqualTo(quick);
        assertThat(changed.withIdle(config.idle())).isEqualTo(config);
    }

    @Test
    void everyOtherWitherKeepsHowTheWorkerWaits() {
        IdleOptions parked = IdleOptions.parkAtOnce();
        WorkerConfig config = WorkerConfig.connectingTo(SCHEDULER).withIdle(parked)
                .withListenAddresses(List.of(Address.tcp("127.0.0.1", 0))).withThreads(3).withMemoryLimit(1L << 30)
                .withSpillFraction(0.5).withLocalDirectory(Path.of("/tmp")).withName("w")
                .withAllowedClasses(ClassAllowList.defaults()).withTransfersPerPeer(4).withOnListening(a -> { })
                .withOptions(WorkerConfig.connectingTo(SCHEDULER).options());
        assertThat(config.idle()).isEqualTo(parked);
        assertThat(config.nthreads()).isEqualTo(3);
    }
}
