package io.dask4j.launcher.it;

import io.dask4j.comm.Address;
import io.dask4j.comm.AuthenticationException;
import io.dask4j.comm.CommClosedException;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.Comms;
import io.dask4j.comm.SelfSignedTls;
import io.dask4j.comm.TlsOptions;
import io.dask4j.launcher.MpiServeMain;
import io.dask4j.launcher.SchedulerFiles;
import io.dask4j.launcher.it.LauncherJob.Impl;
import io.dask4j.launcher.it.LauncherJob.Result;
import io.dask4j.runtime.client.Client;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Real mpirun jobs, under Open MPI and MPICH, of a user program calling MpiCluster.initialize and of the
 * {@code dask4j mpi} command: rank roles, exit codes, logs, scheduler file, outside client, no process
 * left behind. Each job checks several things at once, because every JVM start costs seconds here.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class MpiClusterJobsTest {
    private static final long JOB_SECONDS = 100;

    @TempDir
    Path dir;

    /**
     * A program whose tasks and results are classes of its own package (outside the runtime's) runs under
     * mpirun with no allow-list setting: each rank allows its main class's package.
     */
    @ParameterizedTest
    @EnumSource(Impl.class)
    void aUserProgramsOwnClassesAreAllowedOnEveryRankByDefault(Impl impl) throws Exception {
        LauncherJob.assumeInstalled(impl);
        Result r = LauncherJob.start(impl, 4, dir, org.example.mpiuser.UserProgramMain.class, "logs").await(JOB_SECONDS);
        assertThat(r.exitCode()).as(r.output()).isZero();
        assertThat(r.output()).contains("USER RESULT 165").doesNotContain("ClassNotAllowedException");
    }

    /** Open MPI runs initialize() over the mpi protocol, MPICH the execute() form over tcp: both paths covered. */
    @ParameterizedTest
    @EnumSource(Impl.class)
    void aUserProgramRunsWithRankRolesAndTheJobExitsZeroLeavingNoProcessAndOneLogPerRank(Impl impl) throws Exception {
        LauncherJob.assumeInstalled(impl);
        boolean openMpi = impl == Impl.OPENMPI;
        Result r = LauncherJob.start(impl, 4, dir, RolesMain.class, openMpi ? "ok" : "execute", openMpi ? "mpi" : "tcp", "logs")
                .await(JOB_SECONDS);

        assertThat(r.exitCode()).as(r.output()).isZero();
        assertThat(r.output()).contains("RESULT 338350").contains("TASK RANKS [2, 3]");
        if (openMpi) {
            assertThat(r.output()).contains("CLIENT rank=1 size=4 roles=[CLIENT] workers=[2, 3] scheduler=[mpi://0]");
        } else {
            assertThat(r.output()).contains("EXECUTE RETURNED 338350");
        }
        assertThat(r.output()).doesNotContain("WARN").doesNotContain("ERROR");
        Path logs = dir.resolve("logs");
        assertThat(logs).isDirectoryContaining("glob:**rank-0.log").isDirectoryContaining("glob:**rank-3.log");
        try (var files = Files.list(logs)) {
            assertThat(files.count()).isEqualTo(4);
        }
        String[] roles = {"scheduler", "client", "worker (worker-2)", "worker (worker-3)"};
        for (int rank = 0; rank < 4; rank++) {
            String log = Files.readString(logs.resolve("rank-" + rank + ".log"), StandardCharsets.UTF_8);
            assertThat(log.lines().findFirst().orElseThrow()).endsWith("dask4j rank " + rank + " of 4, role " + roles[rank]);
            assertThat(log).containsPattern("host \\S+, pid \\d+").contains("Java 25")
                    .contains(openMpi ? "MPI library libmpi.so.40, ABI openmpi" : "MPI library libmpich.so.12, ABI mpich")
                    .contains("protocol " + (openMpi ? "mpi" : "tcp")).contains("finished (exit code");
        }
        assertThat(LauncherJob.survivors(logs, 4)).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(Impl.class)
    void aClientThatThrowsMakesTheJobExitNonZeroShowingTheErrorOnce(Impl impl) throws Exception {
        LauncherJob.assumeInstalled(impl);
        Result r = LauncherJob.start(impl, 3, dir, RolesMain.class, "throw", "mpi", "logs").await(JOB_SECONDS);

        assertThat(r.exitCode()).as(r.output()).isNotIn(0, -999);
        assertThat(r.output()).contains("RESULT 338350");
        assertThat(r.count("IllegalStateException: boom from the client program")).as(r.output()).isEqualTo(1);
        assertThat(Files.readString(dir.resolve("logs/rank-1.log"))).contains("finished (exit code 1)");
        assertThat(Files.readString(dir.resolve("logs/rank-2.log"))).contains("finished (exit code 0)");
        assertThat(LauncherJob.survivors(dir.resolve("logs"), 3)).isEmpty();
    }

    /** Non-exclusive layout: two ranks, each also a worker (the one on the scheduler's rank listens on TCP). */
    @org.junit.jupiter.api.Test
    void withSharedRanksTwoRanksRunSchedulerClientAndTwoWorkers() throws Exception {
        LauncherJob.assumeInstalled(Impl.MPICH);
        Result r = LauncherJob.start(Impl.MPICH, 2, dir, RolesMain.class, "shared", "mpi", "logs").await(JOB_SECONDS);

        assertThat(r.exitCode()).as(r.output()).isZero();
        assertThat(r.output()).contains("roles=[CLIENT, WORKER] workers=[0, 1]").contains("TASK RANKS [0, 1]");
        assertThat(Files.readString(dir.resolve("logs/rank-0.log"))).contains("role scheduler+worker (worker-0)");
        assertThat(LauncherJob.survivors(dir.resolve("logs"), 2)).isEmpty();
    }

    /**
     * dask-mpi's execute() layout: the client on the scheduler's rank (reaching it in-process), workers on the
     * other two ranks; each MPI over its own protocol, and every rank ends cleanly.
     */
    @ParameterizedTest
    @EnumSource(Impl.class)
    void theClientOnTheSchedulersRankRunsTasksOnTheOtherRanksAndEveryRankEndsCleanly(Impl impl) throws Exception {
        LauncherJob.assumeInstalled(impl);
        String protocol = impl == Impl.OPENMPI ? "mpi" : "tcp";
        Result r = LauncherJob.start(impl, 3, dir, RolesMain.class, "beside", protocol, "logs").await(JOB_SECONDS);

        assertThat(r.exitCode()).as(r.output()).isZero();
        assertThat(r.output()).contains("CLIENT rank=0 size=3 roles=[SCHEDULER, CLIENT] workers=[1, 2]")
                .contains("RESULT 338350").contains("TASK RANKS [1, 2]");
        assertThat(r.output()).doesNotContain("WARN").doesNotContain("ERROR");
        String scheduler = Files.readString(dir.resolve("logs/rank-0.log"));
        assertThat(scheduler).contains("role scheduler+client").contains("connected to inproc://")
                .contains("finished (exit code 0)");
        for (int rank = 1; rank < 3; rank++) {
            assertThat(Files.readString(dir.resolve("logs/rank-" + rank + ".log"))).contains("role worker (worker-" + rank + ")")
                    .contains("finished (exit code 0)");
        }
        assertThat(LauncherJob.survivors(dir.resolve("logs"), 3)).isEmpty();
    }

    /** System.exit in main: the scheduler rank hears the client is gone and every rank still ends cleanly. */
    @org.junit.jupiter.api.Test
    void aClientThatCallsSystemExitStillEndsEveryRankPromptly() throws Exception {
        LauncherJob.assumeInstalled(Impl.MPICH);
        Result r = LauncherJob.start(Impl.MPICH, 3, dir, RolesMain.class, "exit", "mpi", "logs").await(JOB_SECONDS);

        assertThat(r.exitCode()).as(r.output()).isEqualTo(3);
        assertThat(r.output()).contains("RESULT 338350");
        assertThat(Files.readString(dir.resolve("logs/rank-0.log"))).contains("finished (exit code 0)");
        assertThat(Files.readString(dir.resolve("logs/rank-2.log"))).contains("finished (exit code 0)");
        assertThat(LauncherJob.survivors(dir.resolve("logs"), 3)).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(Impl.class)
    void tooFewRanksEndEveryRankNonZeroWithOneClearMessage(Impl impl) throws Exception {
        LauncherJob.assumeInstalled(impl);
        Result r = LauncherJob.start(impl, 2, dir, RolesMain.class, "ok", "mpi", "logs").await(JOB_SECONDS);

        assertThat(r.exitCode()).as(r.output()).isNotIn(0, -999);
        assertThat(r.count("too few MPI ranks: this job has 2, the layout needs at least 3")).as(r.output()).isEqualTo(1);
        assertThat(Files.readString(dir.resolve("logs/rank-1.log"))).contains("exiting with code 2: too few MPI ranks");
        assertThat(LauncherJob.survivors(dir.resolve("logs"), 2)).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(Impl.class)
    void aKilledWorkerRankEndsTheJobWithinSeconds(Impl impl) throws Exception {
        LauncherJob.assumeInstalled(impl);
        LauncherJob job = LauncherJob.start(impl, 4, dir, RolesMain.class, "wait", "mpi", "logs");
        assertThat(job.awaitText(job.output, "WAITING", JOB_SECONDS)).as(job.output()).isTrue();
        long pid = LauncherJob.pidOf(dir.resolve("logs/rank-3.log"));
        long killedAt = System.nanoTime();
        ProcessHandle.of(pid).orElseThrow().destroyForcibly();

        Result r = job.await(60);
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - killedAt);
        assertThat(r.exitCode()).as(r.output()).isNotIn(0, -999);
        assertThat(seconds).as("seconds from the kill to the end of the job").isLessThan(30);
        assertThat(r.output()).containsAnyOf("rank 3", "worker-3", "KILLED", "signal 9");
        assertThat(LauncherJob.survivors(dir.resolve("logs"), 4)).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(Impl.class)
    void aClientWaitingOnATaskWhenAWorkerRankDiesIsNotReportedAsFailing(Impl impl) throws Exception {
        LauncherJob.assumeInstalled(impl);
        LauncherJob job = LauncherJob.start(impl, 4, dir, RolesMain.class, "wait-on-task", "mpi", "logs");
        assertThat(job.awaitText(job.output, "WAITING", JOB_SECONDS)).as(job.output()).isTrue();
        ProcessHandle.of(LauncherJob.pidOf(dir.resolve("logs/rank-3.log"))).orElseThrow().destroyForcibly();

        Result r = job.await(60);
        assertThat(r.exitCode()).as(r.output()).isNotIn(0, -999);
        // The launcher stops the other ranks, which closes the client under the waiting program: that is not the
        // program's failure, and the client rank must not say it is (the launcher's own lines name rank 3).
        assertThat(r.output()).as(r.output()).doesNotContain("the client program failed")
                .doesNotContain("exited without returning from main");
        if (impl == Impl.OPENMPI) {   // its mpirun stops the other ranks with SIGTERM (MPICH's kills them)
            assertThat(r.output()).as(r.output()).contains("rank 1 stopped by SIGTERM")
                    .contains("the client program on rank 1 was stopped by SIGTERM")
                    .contains("rank 0 stopped by SIGTERM; stopping its scheduler");
        }
        assertThat(LauncherJob.survivors(dir.resolve("logs"), 4)).isEmpty();
    }

    /** dask4j mpi: stale file replaced, an outside TCP client computes on MPI workers, SIGTERM ends it all. */
    @ParameterizedTest
    @EnumSource(Impl.class)
    void anOutsideClientDrivesTheCommandsClusterThroughAFreshSchedulerFile(Impl impl) throws Exception {
        LauncherJob.assumeInstalled(impl);
        Path file = dir.resolve("scheduler.json");
        Files.writeString(file, "{\"address\": \"tcp://127.0.0.1:1\", \"addresses\": [\"tcp://127.0.0.1:1\"], \"pid\": 1, \"run_id\": \"stale\"}");
        LauncherJob job = LauncherJob.start(impl, 3, dir, MpiServeMain.class, "--scheduler-file", file.toString(),
                "--log-dir", dir.resolve("logs").toString(), "--nthreads", "2");
        assertThat(job.awaitText(dir.resolve("logs/rank-0.log"), "cluster running", JOB_SECONDS)).as(job.output()).isTrue();

        SchedulerFiles.Content content = SchedulerFiles.read(file, Duration.ofSeconds(5));
        assertThat(content.runId()).isNotEqualTo("stale");
        assertThat(Files.readString(dir.resolve("logs/rank-2.log"))).contains("run " + content.runId());
        assertThat(content.addresses()).anyMatch(a -> a.toString().equals("mpi://0"));
        // Every tcp listener of the job (the scheduler's, each worker's) refuses a peer without the job's secret.
        Matcher workerTcp = Pattern.compile("worker mpi://1 listening on \\[mpi://1, (tcp://[0-9.]+:\\d+)]")
                .matcher(Files.readString(dir.resolve("logs/rank-1.log")));
        assertThat(workerTcp.find()).isTrue();
        for (Address listener : List.of(content.socketAddress(), Address.parse(workerTcp.group(1)))) {
            assertThat(listener.scheme()).isEqualTo("tcp");
            assertThatThrownBy(() -> Comms.connect(listener, CommOptions.fromEnvironment(Map.of())).close())
                    .as(listener.toString()).isInstanceOf(AuthenticationException.class);
        }
        computeOnBothWorkersThenStop(job, () -> Client.connect(file));   // the address and the cluster's secret
        assertThat(file).doesNotExist();
    }

    /** An outside client ({@code connect}) computes on the job's MPI workers 1 and 2; then SIGTERM ends every rank. */
    private void computeOnBothWorkersThenStop(LauncherJob job, Supplier<Client> connect) throws Exception {
        try (Client client = connect.get()) {
            assertThat(OutsideClientMain.compute(client)).isEqualTo("sum=338350 tree=338350 ranks=[1, 2]");
        }
        assertThat(Files.readString(dir.resolve("logs/rank-0.log"))).contains("worker mpi://1 registered")
                .contains("worker mpi://2 registered");

        job.process.destroy();
        Result r = job.await(30);
        assertThat(r.exitCode()).as(r.output()).isNotEqualTo(-999);
        assertThat(LauncherJob.survivors(dir.resolve("logs"), 3)).isEmpty();
    }

    /**
     * dask4j mpi with TLS key material (PEM files, mutual TLS): the scheduler file names only tls:// and mpi://
     * addresses; an outside client with the certificate and the file's secret computes (its results fetched from the
     * workers' tls listeners); a plaintext client and a TLS client without the secret are refused, and the cluster
     * keeps serving.
     */
    @ParameterizedTest
    @EnumSource(Impl.class)
    void withTlsKeyMaterialOutsideClientsComputeOverTlsAndOthersAreRefused(Impl impl) throws Exception {
        LauncherJob.assumeInstalled(impl);
        SelfSignedTls certificate = SelfSignedTls.create(dir.resolve("certificate"));
        Path file = dir.resolve("scheduler.json");
        LauncherJob job = LauncherJob.start(impl, 3, dir, MpiServeMain.class, "--scheduler-file", file.toString(),
                "--log-dir", dir.resolve("logs").toString(), "--tls-cert", certificate.certificate().toString(),
                "--tls-key", certificate.privateKey().toString(), "--tls-ca-file", certificate.certificate().toString(),
                "--tls-mutual");
        assertThat(job.awaitText(dir.resolve("logs/rank-0.log"), "cluster running", JOB_SECONDS)).as(job.output()).isTrue();

        SchedulerFiles.Content content = SchedulerFiles.read(file, Duration.ofSeconds(5));
        Address outside = content.addresses().getFirst();
        assertThat(outside.scheme()).isEqualTo("tls");
        assertThat(content.addresses()).extracting(Address::scheme).containsOnly("tls", "mpi");
        CommOptions withSecret = CommOptions.fromEnvironment(Map.of("DASK4J_SECRET", content.secret()));
        TlsOptions tls = TlsOptions.of(certificate.pemFiles()).withMutualAuth(true);

        Address plain = Address.tcp(outside.host(), outside.port());
        assertThatThrownBy(() -> Client.connect(plain, withSecret)).isInstanceOf(CommClosedException.class)
                .hasMessageContaining("tls://");
        assertThatThrownBy(() -> Client.connect(outside, CommOptions.fromEnvironment(Map.of()).withTls(tls)))
                .isInstanceOf(AuthenticationException.class);
        computeOnBothWorkersThenStop(job, () -> Client.connect(outside, withSecret.withTls(tls)));
    }

    /** dask4j mpi --no-scheduler: a second job's workers join over TCP and stop (exit 0) when the scheduler goes. */
    @org.junit.jupiter.api.Test
    void workersOfANoSchedulerJobJoinARunningClusterAndStopWhenItsSchedulerGoes() throws Exception {
        LauncherJob.assumeInstalled(Impl.MPICH);
        Path file = dir.resolve("scheduler.json");
        Path first = Files.createDirectories(dir.resolve("first"));
        Path second = Files.createDirectories(dir.resolve("second"));
        LauncherJob cluster = LauncherJob.start(Impl.MPICH, 2, first, MpiServeMain.class, "--scheduler-file", file.toString(),
                "--log-dir", first.resolve("logs").toString());
        assertThat(cluster.awaitText(first.resolve("logs/rank-0.log"), "cluster running", JOB_SECONDS)).as(cluster.output()).isTrue();
        LauncherJob extra = LauncherJob.start(Impl.MPICH, 2, second, MpiServeMain.class, "--no-scheduler", "--scheduler-file",
                file.toString(), "--log-dir", second.resolve("logs").toString(), "--name", "extra");
        assertThat(extra.awaitText(second.resolve("logs/rank-0.log"), "cluster running", JOB_SECONDS)).as(extra.output()).isTrue();
        assertThat(extra.awaitText(second.resolve("logs/rank-1.log"), "cluster running", JOB_SECONDS)).as(extra.output()).isTrue();

        SchedulerFiles.Content content = SchedulerFiles.read(file, Duration.ofSeconds(5));
        try (Client client = Client.connect(file)) {   // the address and the cluster's secret
            assertThat(OutsideClientMain.compute(client)).startsWith("sum=338350 tree=338350");
        }
        assertThat(Files.readString(first.resolve("logs/rank-0.log"))).contains("worker mpi://1 registered")
                .containsPattern("worker tcp://127.0.0.1:\\d+ registered");

        cluster.process.destroy();
        assertThat(cluster.await(30).exitCode()).isNotEqualTo(-999);
        Result r = extra.await(30);
        assertThat(r.exitCode()).as(r.output()).isZero();
        assertThat(r.output()).contains("went away; worker extra-0 stops");
        assertThat(LauncherJob.survivors(first.resolve("logs"), 2)).isEmpty();
        assertThat(LauncherJob.survivors(second.resolve("logs"), 2)).isEmpty();
    }
}
