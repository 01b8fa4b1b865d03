package io.dask4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dask4j.jobs.JobStoppedException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;
import picocli.CommandLine.Command;

class MainTest {

    private record Run(int code, String out, String err) {
        String firstErrLine() {
            return err.lines().findFirst().orElse("");
        }
    }

    private static Run run(String... args) {
        return run(Main.commandLine(), args);
    }

    private static Run run(CommandLine cli, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int code = cli.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void helpListsEveryCommandANewcomerNeeds() {
        Run r = run("--help");
        assertThat(r.code()).isZero();
        assertThat(r.out()).contains("demo", "scheduler", "worker", "mpi", "bench", "./dask4j test");
    }

    @Test
    void benchListsCommTasksAndSeed() {
        Run r = run("bench", "--help");
        assertThat(r.code()).isZero();
        assertThat(r.out()).contains("comm", "tasks", "seed");
    }

    @Test
    void benchCommRejectsAnUnknownBackendWithAClearMessage() {
        Run r = run("bench", "comm", "--backend", "carrier-pigeon");
        assertThat(r.code()).isNotZero();
        assertThat(r.err()).contains("unknown backend 'carrier-pigeon'", "tcp, tls, inproc or mpi");
    }

    @Test
    void benchCommHelpListsTheChosenBackendsOptions() {
        Run tcp = run("bench", "comm", "--help");
        assertThat(tcp.code()).isZero();
        assertThat(tcp.out()).contains("--backend", "Options of the tcp benchmark", "--sizes", "--json");

        Run mpi = run("bench", "comm", "--backend", "mpi", "--help");
        assertThat(mpi.code()).isZero();
        assertThat(mpi.out()).contains("Options of the mpi benchmark", "--mpi", "--heap-frames", "--min-rounds");
    }

    @Test
    void theBenchmarkBehindBenchCommShowsItsUsageUnderTheCommandAsTyped() {
        Run mpi = run("bench", "comm", "--backend", "mpi", "--help");
        assertThat(mpi.out()).doesNotContain("Usage: comm-mpi");
        assertThat(mpi.out().lines().filter(l -> l.startsWith("Usage: dask4j bench comm"))).hasSize(2);
    }

    @Test
    void anUnknownCommandFailsWithUsage() {
        Run r = run("frobnicate");
        assertThat(r.code()).isNotZero();
        assertThat(r.err()).contains("frobnicate");
    }

    @Test
    void versionNamesTheJavaRuntime() {
        Run r = run("--version");
        assertThat(r.code()).isZero();
        assertThat(r.out()).contains("dask4j", "Java " + Runtime.version().feature());
    }

    /**
     * Bad input is refused before anything starts: its message first, then the usage of the command as typed
     * (not of a class's own name), exit code 2, no stack trace. Before, each of these printed a stack trace and
     * exited with 1, or hung ({@code bench tasks --workers 0}).
     */
    @Test
    void theMpiCommandTakesTheTlsOptionsOfTheScheduler() {
        Run mpi = run("mpi", "--help");
        Run scheduler = run("scheduler", "--help");
        for (String option : List.of("--tls-keystore", "--tls-truststore", "--tls-cert", "--tls-key", "--tls-ca-file",
                "--tls-mutual", "--tls-no-hostname-check", "--tls-no-secret")) {
            assertThat(scheduler.out()).contains(option);
            assertThat(mpi.out()).as(option).contains(option);
        }
    }

    @ParameterizedTest
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    @CsvSource(delimiter = '|', textBlock = """
            worker nonsense-address                      | ADDRESS: bad tcp address 'tcp://nonsense-address'       | dask4j worker
            worker --nthreads 0 tcp://127.0.0.1:1        | --nthreads must be at least 1, got 0                    | dask4j worker
            worker --memory-limit lots tcp://127.0.0.1:1 | --memory-limit: bad memory size 'lots'                  | dask4j worker
            scheduler --port -5                          | --port must be 0-65535, got -5                          | dask4j scheduler
            scheduler --protocol udp --port 0            | --protocol must be tcp or tls, not udp                  | dask4j scheduler
            scheduler --dashboard-address garbage        | --dashboard-address: bad dashboard address 'garbage'    | dask4j scheduler
            scheduler --dashboard-address :99999         | --dashboard-address: dashboard port must be 0-65535     | dask4j scheduler
            mpi --protocol bogus                         | --protocol: unknown protocol 'bogus'                    | dask4j mpi
            mpi --no-scheduler                           | --no-scheduler needs the running scheduler's            | dask4j mpi
            demo --runs 0                                | --runs must be at least 1, got 0                        | dask4j demo
            bench seed --n -3                            | --n must be at least 1, got -3                          | dask4j bench seed
            bench seed --chunk 0                         | --chunk: chunk sizes must be positive                   | dask4j bench seed
            bench seed --backend mpi --mpi bogus         | unknown --mpi 'bogus': expected openmpi or mpich        | dask4j bench seed
            bench tasks --n 0                            | --n must be at least 1, got 0                           | dask4j bench tasks
            bench tasks --backend inproc --workers 0     | --workers must be at least 1, got 0                     | dask4j bench tasks
            bench tasks --backend mpi --mpi bogus        | unknown --mpi 'bogus': expected openmpi or mpich        | dask4j bench tasks
            bench comm --backend inproc --sizes -5       | --sizes must be at least 1, got -5                      | dask4j bench comm
            bench comm --iterations 0                    | --iterations must be at least 1, got 0                  | dask4j bench comm
            bench comm --backend mpi --sizes 8,-5        | --sizes must be at least 1, got -5                      | dask4j bench comm
            bench comm --backend mpi --mpi lam           | unknown --mpi 'lam': expected openmpi or mpich          | dask4j bench comm
            bench comm --backend inproc --sizes 8,1XB    | Invalid value for option '--sizes' (SIZE): bad size '1XB' | dask4j bench comm
            """)
    void badInputIsRefusedWithItsMessageTheUsageAndExitCode2(String args, String message, String command) {
        Run r = run(args.split(" "));
        assertThat(r.code()).as(r.err()).isEqualTo(2);
        assertThat(r.firstErrLine()).startsWith(message);
        assertThat(r.err()).contains("Usage: " + command + " ").doesNotContain("Exception", "\tat ");
    }

    @Test
    void aPortInUseIsOneLineAndExitCode1() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Run r = run("scheduler", "--host", "127.0.0.1", "--port", Integer.toString(taken.getLocalPort()), "--no-dashboard");
            assertThat(r.code()).isEqualTo(1);
            assertThat(r.err().lines()).containsExactly("dask4j scheduler: cannot listen on tcp://127.0.0.1:" + taken.getLocalPort()
                    + ": BindException (Address already in use)");
        }
    }

    @Test
    void aMissingTlsKeyStoreIsOneLineNamingIt() {
        Run r = run("scheduler", "--port", "0", "--no-dashboard", "--tls-keystore", "/nonexistent/node.p12");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err().lines()).containsExactly("dask4j scheduler: TLS key store /nonexistent/node.p12 does not exist");
    }

    /** A subcommand that fails with the exception it is given. */
    @Command(name = "boom")
    static final class Boom implements Callable<Integer> {
        private final Exception error;

        Boom(Exception error) {
            this.error = error;
        }

        @Override
        public Integer call() throws Exception {
            throw error;
        }
    }

    private static Run runFailing(Exception error, boolean debug) {
        CommandLine cli = Main.commandLine().addSubcommand(new Boom(error));
        if (debug) {
            cli.setExecutionExceptionHandler(new ExecutionErrors(true));
        }
        return run(cli, "boom");
    }

    @Test
    void aFailureTheUserCanActOnIsOneLineNamingTheCommand() {
        Run state = runFailing(new IllegalStateException("no workers joined within 60 s"), false);
        assertThat(state.code()).isEqualTo(1);
        assertThat(state.err().lines()).containsExactly("dask4j boom: no workers joined within 60 s");

        Run input = runFailing(new IllegalArgumentException("bad address 'x'"), false);
        assertThat(input.code()).isEqualTo(2);
        assertThat(input.err().lines()).containsExactly("dask4j boom: bad address 'x'");
    }

    @Test
    void theCausesMessageIsAddedWhenItSaysMore() {
        Run r = runFailing(new UncheckedIOException("cannot read scheduler.json", new IOException("Permission denied")), false);
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err().lines()).containsExactly("dask4j boom: cannot read scheduler.json: Permission denied");
    }

    @Test
    void anUnexpectedExceptionIsABugAndKeepsItsStackTraceAfterAClearFirstLine() {
        Run r = runFailing(new NullPointerException("oops"), false);
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.firstErrLine()).isEqualTo("dask4j boom: internal error: java.lang.NullPointerException: oops");
        assertThat(r.err()).contains("\tat ");
    }

    /** Ctrl-C or SIGTERM on a command that runs a job: no failure to report while the JVM shuts down. */
    @Test
    void aJobStoppedWithThisCommandEndsSilentlyWithTheStatusOfAStop() {
        Run r = runFailing(JobStoppedException.byShutdown(), false);
        assertThat(r.code()).isEqualTo(143);
        assertThat(r.err()).isEmpty();
    }

    @Test
    void aJobStoppedByASignalOfItsOwnIsOneLineWithThatSignalsStatus() {
        Run r = runFailing(JobStoppedException.bySignal(130), false);
        assertThat(r.code()).isEqualTo(130);
        assertThat(r.err().lines()).containsExactly("dask4j boom: the job was stopped by SIGINT");
    }

    @Test
    void atDebugLevelEveryFailureShowsItsStackTrace() {
        assertThat(ExecutionErrors.isDebug("debug")).isTrue();
        assertThat(ExecutionErrors.isDebug("WARN")).isFalse();
        assertThat(ExecutionErrors.isDebug(null)).isFalse();
        Run r = runFailing(new IllegalStateException("no workers"), true);
        assertThat(r.firstErrLine()).isEqualTo("dask4j boom: no workers");
        assertThat(r.err()).contains("java.lang.IllegalStateException: no workers", "\tat ");
    }
}
