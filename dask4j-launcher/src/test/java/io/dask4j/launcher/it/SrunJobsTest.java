package io.dask4j.launcher.it;

import io.dask4j.launcher.it.LauncherJob.Result;
import io.dask4j.launcher.it.LauncherJob.Srun;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The MPI recipe started by Slurm's {@code srun} instead of {@code mpirun}: Open MPI through PMIx, MPICH through
 * PMI-2. Needs a Slurm that answers on this machine (CI starts a one-node one, {@code .ci/slurm-single-node});
 * skipped without one unless {@code DASK4J_REQUIRE_SLURM=1}.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class SrunJobsTest {
    private static final long JOB_SECONDS = 100;

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(Srun.class)
    void aUserProgramRunsUnderSrunWithRankRolesAndEveryRankKnowsItsLauncher(Srun srun) throws Exception {
        LauncherJob.assumeSlurm();
        Result r = LauncherJob.start(srun, 4, dir, RolesMain.class, "ok", "mpi", "logs").await(JOB_SECONDS);

        assertThat(r.exitCode()).as(r.output()).isZero();
        assertThat(r.output()).contains("CLIENT rank=1 size=4 roles=[CLIENT] workers=[2, 3] scheduler=[mpi://0]")
                .contains("RESULT 338350").contains("TASK RANKS [2, 3]");
        assertThat(r.output()).doesNotContain("WARN").doesNotContain("ERROR");
        String launcher = srun == Srun.OPENMPI_PMIX ? "launcher Slurm srun with PMIx (PMIX_RANK)"
                : "launcher Slurm srun with PMI (PMI_RANK)";
        String library = srun == Srun.OPENMPI_PMIX ? "MPI library libmpi.so.40, ABI openmpi" : "MPI library libmpich.so.12, ABI mpich";
        String[] roles = {"scheduler", "client", "worker (worker-2)", "worker (worker-3)"};
        for (int rank = 0; rank < 4; rank++) {
            String log = Files.readString(dir.resolve("logs/rank-" + rank + ".log"), StandardCharsets.UTF_8);
            assertThat(log.lines().findFirst().orElseThrow()).endsWith("dask4j rank " + rank + " of 4, role " + roles[rank]);
            assertThat(log).contains(launcher).contains(library).contains("finished (exit code 0)");
        }
        assertThat(LauncherJob.survivors(dir.resolve("logs"), 4)).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(Srun.class)
    void aKilledWorkerRankEndsTheSrunJobWithinSeconds(Srun srun) throws Exception {
        LauncherJob.assumeSlurm();
        LauncherJob job = LauncherJob.start(srun, 4, dir, RolesMain.class, "wait", "mpi", "logs");
        assertThat(job.awaitText(job.output, "WAITING", JOB_SECONDS)).as(job.output()).isTrue();
        long killedAt = System.nanoTime();
        ProcessHandle.of(LauncherJob.pidOf(dir.resolve("logs/rank-3.log"))).orElseThrow().destroyForcibly();

        Result r = job.await(60);
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - killedAt);
        assertThat(r.exitCode()).as(r.output()).isNotIn(0, -999);
        assertThat(seconds).as("seconds from the kill to the end of the job").isLessThan(30);
        assertThat(r.output()).containsAnyOf("rank 3", "worker-3", "task 3", "signal 9", "Killed");
        assertThat(LauncherJob.survivors(dir.resolve("logs"), 4)).isEmpty();
    }
}
