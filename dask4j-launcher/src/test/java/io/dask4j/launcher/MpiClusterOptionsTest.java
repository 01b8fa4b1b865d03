package io.dask4j.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.dask4j.comm.config.ConfigSource;
import io.dask4j.mpi.MpiOptions;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MpiClusterOptionsTest {

    @Test
    void theDefaultsCarryTheSettingsOfTheirSourceDownToHowMpiStarts() {
        ConfigSource source = ConfigSource.of(Map.of("dask4j.mpi.doorbells", "false", "dask4j.mpi.spins", "3"),
                Map.of("DASK4J_LOG_DIR", "/tmp/job-logs", "DASK4J_MPI_LIB", "libmpich.so.12"));
        MpiClusterOptions options = MpiClusterOptions.defaults(source);
        assertThat(options.logDirectory()).isEqualTo(Path.of("/tmp/job-logs"));
        assertThat(options.mpi()).isEqualTo(MpiOptions.fromSettings(source));
        assertThat(options.mpi().library()).isEqualTo("libmpich.so.12");
        assertThat(options.mpi().doorbells()).isFalse();
        assertThat(options.mpi().engine().spins()).isEqualTo(3);
    }

    @Test
    void withMpiReplacesOnlyHowMpiStartsAndOtherWithersKeepIt() {
        MpiClusterOptions base = MpiClusterOptions.defaults(ConfigSource.ofEnvironment(Map.of()));
        MpiOptions mpi = base.mpi().withLibrary("libmpi.so.40").withDoorbells(false);
        MpiClusterOptions changed = base.withMpi(mpi);
        assertThat(changed.mpi()).isEqualTo(mpi);
        assertThat(changed.withMpi(base.mpi())).isEqualTo(base);
        assertThat(changed.withThreads(4).withProtocol(MpiProtocol.TCP).withAllowedClasses(base.allowedClasses()).mpi())
                .isEqualTo(mpi);
    }
}
