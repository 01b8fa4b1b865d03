package io.dask4j.mpi.it;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A 2-rank mpirun job under Open MPI and MPICH ({@link ReleasableFramesMain}): large native frames arrive in
 * pooled memory the reader releases, released memory throws and is reused, the budget and the GC fallback
 * bound what unreleased frames hold.
 */
class ReleasableFramesJobTest {

    @ParameterizedTest
    @EnumSource(MpiJob.Impl.class)
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void largeNativeFramesArriveInPooledMemoryThatTheReaderReleasesOrTheGcReclaims(MpiJob.Impl impl) throws Exception {
        MpiJob.assumeInstalled(impl);
        MpiJob.Result result = MpiJob.run(impl, 2, Map.of(), 120, ReleasableFramesMain.class);
        assertThat(result.output()).as(result.output())
                .contains("CHECK intact-and-gone-after-release OK", "CHECK released-buffers-reused OK",
                        "CHECK heap-and-small-frames-unchanged OK", "CHECK budget-falls-back-to-heap OK",
                        "CHECK dropped-frames-collected OK", "RANK 0 OK", "RANK 1 OK")
                .doesNotContain("FAILED");
        assertThat(result.exitCode()).as(result.output()).isZero();
    }
}
