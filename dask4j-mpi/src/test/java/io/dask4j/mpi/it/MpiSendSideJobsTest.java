package io.dask4j.mpi.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Real mpirun jobs for the sending side of the mpi backend: message order under inbox pressure, the send budget
 * for copied frames, and interrupted readers. Each job is killed if it outlives its timeout.
 */
class MpiSendSideJobsTest {

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void aSmallMessageNeverSlipsBetweenALargeOnesEnvelopeAndItsFramesUnderInboxPressure() throws Exception {
        assertTheFloodArrivesInOrder(MpiJob.Impl.MPICH);
    }

    /**
     * The same job under Open MPI, only when {@code DASK4J_MPI_STRESS=1}: it failed in every run with {@code
     * btl_vader_single_copy_mechanism none}, which MpiJob picks otherwise, and twice in about 70 runs with the
     * default (CMA) before the send budget went lock-free: Open MPI's ob1 breaks the message order once 65536
     * later messages to a rank overtake one it held back (README, Known gaps; src/test/c/ordering_flood.c).
     */
    @Test
    @EnabledIfEnvironmentVariable(named = "DASK4J_MPI_STRESS", matches = "1")
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void underOpenMpiTooWhenAsked() throws Exception {
        assertTheFloodArrivesInOrder(MpiJob.Impl.OPENMPI);
    }

    private static void assertTheFloodArrivesInOrder(MpiJob.Impl impl) throws Exception {
        MpiJob.assumeInstalled(impl);
        MpiJob.Result result = MpiJob.run(impl, 2, Map.of(MpiJob.SINGLE_COPY_VARIABLE, "cma"), 120, InboxPressureOrderMain.class);
        assertThat(result.output()).as(result.output()).contains("RANK 0 OK", "RANK 1 OK").doesNotContain("FAILED");
        assertThat(result.exitCode()).as(result.output()).isZero();
    }

    @ParameterizedTest
    @EnumSource(MpiJob.Impl.class)
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void writesOfCopiedFramesWaitOnceTheSendBudgetIsUsedUp(MpiJob.Impl impl) throws Exception {
        MpiJob.assumeInstalled(impl);
        MpiJob.Result result = MpiJob.run(impl, 2, Map.of(), 120, SendBudgetMain.class);
        assertThat(result.output()).as(result.output()).contains("RANK 0 STALLED AFTER", "RANK 0 OK", "RANK 1 OK")
                .doesNotContain("FAILED");
        assertThat(result.exitCode()).as(result.output()).isZero();
    }

    @ParameterizedTest
    @EnumSource(MpiJob.Impl.class)
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void writesOfManyFrameMessagesWaitOnceTooManySendsArePending(MpiJob.Impl impl) throws Exception {
        MpiJob.assumeInstalled(impl);
        MpiJob.Result result = MpiJob.run(impl, 2, Map.of(), 120, SendBudgetMain.class, "many-frames");
        assertThat(result.output()).as(result.output()).contains("RANK 0 STALLED AFTER", "RANK 0 OK", "RANK 1 OK")
                .doesNotContain("FAILED");
        assertThat(result.exitCode()).as(result.output()).isZero();
    }

    @ParameterizedTest
    @EnumSource(MpiJob.Impl.class)
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void anInterruptedReaderGetsCommClosedExceptionInsteadOfSpinning(MpiJob.Impl impl) throws Exception {
        MpiJob.assumeInstalled(impl);
        MpiJob.Result result = MpiJob.run(impl, 2, Map.of(), 90, InterruptMain.class);
        assertThat(result.output()).as(result.output()).contains("READ INTERRUPTED", "RANK 0 OK", "RANK 1 OK")
                .doesNotContain("FAILED");
        assertThat(result.exitCode()).as(result.output()).isZero();
    }
}
