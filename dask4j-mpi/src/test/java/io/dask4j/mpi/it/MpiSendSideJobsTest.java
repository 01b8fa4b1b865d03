package io.dask4j.mpi.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Real mpirun jobs for the sending side of the mpi backend: message order under inbox pressure, the send budget
 * for copied frames, and interrupted readers. They take as long as the machine needs: a job fails when it stops
 * moving (its output stands still for {@value #STALL_SECONDS} s, see {@link MpiJob#runWhileProgressing}; its
 * ranks print their counts as they go and fail when those stand still for {@link Progress#STALL}), not when it is
 * slow.
 */
class MpiSendSideJobsTest {

    /** How long a job's output may stand still: longer than a rank's own stall window, and than a JVM's start. */
    private static final int STALL_SECONDS = 90;

    @Test
    void aSmallMessageNeverSlipsBetweenALargeOnesEnvelopeAndItsFramesUnderInboxPressure() throws Exception {
        assertTheFloodArrivesInOrder(MpiJob.Impl.MPICH, "none");   // an Open MPI setting: MPICH ignores it
    }

    /**
     * The same job under Open MPI, with copy-in/copy-out shared memory ({@code none}, which MpiJob picks otherwise)
     * and with CMA. Open MPI 4.1's ob1 matched a later message of rank 0 in place of one it had held back once 65536
     * later sends had overtaken it (docs/status.md, Known gaps; src/test/c/README.md): this job failed in every run
     * with {@code none} until {@link io.dask4j.mpi.comm.PeerSendOrder} bounded the sends posted to one rank while
     * an earlier one to it is incomplete.
     */
    @ParameterizedTest
    @ValueSource(strings = {"none", "cma"})
    void underOpenMpiWithEitherSharedMemoryCopy(String singleCopyMechanism) throws Exception {
        assertTheFloodArrivesInOrder(MpiJob.Impl.OPENMPI, singleCopyMechanism);
    }

    private static void assertTheFloodArrivesInOrder(MpiJob.Impl impl, String singleCopyMechanism) throws Exception {
        MpiJob.assumeInstalled(impl);
        MpiJob.Result result = MpiJob.runWhileProgressing(impl, 2, Map.of(MpiJob.SINGLE_COPY_VARIABLE, singleCopyMechanism),
                STALL_SECONDS, InboxPressureOrderMain.class);
        assertThat(result.output()).as(result.output()).contains("RANK 0 OK", "RANK 1 OK").doesNotContain("FAILED");
        assertThat(result.exitCode()).as(result.output()).isZero();
    }

    @ParameterizedTest
    @EnumSource(MpiJob.Impl.class)
    void writesOfCopiedFramesWaitOnceTheSendBudgetIsUsedUp(MpiJob.Impl impl) throws Exception {
        assertTwoRankJobPasses(impl, "RANK 0 STALLED AFTER", SendBudgetMain.class);
    }

    @ParameterizedTest
    @EnumSource(MpiJob.Impl.class)
    void writesOfManyFrameMessagesWaitOnceTooManySendsArePending(MpiJob.Impl impl) throws Exception {
        assertTwoRankJobPasses(impl, "RANK 0 STALLED AFTER", SendBudgetMain.class, "many-frames");
    }

    @ParameterizedTest
    @EnumSource(MpiJob.Impl.class)
    void writesOfSmallMessagesWaitOnceTheReadWindowIsUnread(MpiJob.Impl impl) throws Exception {
        assertTwoRankJobPasses(impl, "RANK 0 STALLED AFTER", SendBudgetMain.class, "frameless");
    }

    @ParameterizedTest
    @EnumSource(MpiJob.Impl.class)
    void aStuckCommDoesNotStopTheCreditsOfAnotherCommBetweenTheSameRanks(MpiJob.Impl impl) throws Exception {
        assertTwoRankJobPasses(impl, "RANK 0 FLOOD DONE", CreditPastPauseMain.class);
    }

    @ParameterizedTest
    @EnumSource(MpiJob.Impl.class)
    void anInterruptedReaderGetsCommClosedExceptionInsteadOfSpinning(MpiJob.Impl impl) throws Exception {
        assertTwoRankJobPasses(impl, "READ INTERRUPTED", InterruptMain.class);
    }

    /** Runs a 2-rank job of {@code main}: it must print {@code marker}, both ranks OK, no FAILED, and exit 0. */
    private static void assertTwoRankJobPasses(MpiJob.Impl impl, String marker, Class<?> main, String... args)
            throws Exception {
        MpiJob.assumeInstalled(impl);
        MpiJob.Result result = MpiJob.runWhileProgressing(impl, 2, Map.of(), STALL_SECONDS, main, args);
        assertThat(result.output()).as(result.output()).contains(marker, "RANK 0 OK", "RANK 1 OK").doesNotContain("FAILED");
        assertThat(result.exitCode()).as(result.output()).isZero();
    }
}
