package io.dask4j.launcher.it;

import io.dask4j.launcher.it.LauncherJob.Impl;
import io.dask4j.launcher.it.LauncherJob.Result;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ExecutorService contract over mpi://, under Open MPI and MPICH: a 4-rank job (scheduler, client, 2 workers)
 * whose client rank runs {@link MpiExecutorCases}.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class MpiExecutorJobsTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(Impl.class)
    void theExecutorServiceContractHoldsOverMpi(Impl impl) throws Exception {
        LauncherJob.assumeInstalled(impl);
        Result r = LauncherJob.start(impl, 4, dir, ExecutorMain.class, "mpi", "logs").await(120);

        assertThat(r.output()).containsPattern("EXECUTOR CONTRACT found=(\\d+) succeeded=\\1 failed=0");
        assertThat(r.output()).doesNotContain("EXECUTOR CONTRACT found=0 ");
        assertThat(r.exitCode()).as(r.output()).isZero();
        assertThat(LauncherJob.survivors(dir.resolve("logs"), 4)).isEmpty();
    }
}
