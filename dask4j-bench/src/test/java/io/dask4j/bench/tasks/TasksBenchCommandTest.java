package io.dask4j.bench.tasks;

import io.dask4j.comm.JvmFlags;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

import static org.assertj.core.api.Assertions.assertThat;

class TasksBenchCommandTest {
    @Test
    @Timeout(60)
    void printsOneJsonObjectPerWorkload() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        int code = new CommandLine(new TasksBenchCommand(out)).execute("--backend", "inproc", "--n", "200", "--repeat", "1",
                "--rounds", "100", "--chain", "300", "--json");
        assertThat(code).isZero();
        String[] lines = bytes.toString(StandardCharsets.UTF_8).strip().split("\n");
        assertThat(lines).hasSize(4);
        assertThat(lines[0]).startsWith("{\"backend\":\"inproc\",\"workload\":\"map\",\"n\":200,\"tasks_per_s\":")
                .contains("\"processes\":1").doesNotContain("client_rank").doesNotContain("latency_us");
        assertThat(lines[1]).contains("\"workload\":\"tree\",\"n\":399");
        TasksBenchCommand.Result trip = TasksBenchCommand.Result.fromJson(lines[2]);
        assertThat(trip.workload()).isEqualTo("round-trip");
        assertThat(trip.n()).isEqualTo(100);
        assertThat(trip.latencyUs()).hasSize(3);
        assertThat(trip.latencyUs()[0]).isPositive().isLessThanOrEqualTo(trip.latencyUs()[1]);
        assertThat(trip.latencyUs()[1]).isLessThanOrEqualTo(trip.latencyUs()[2]);
        assertThat(trip.seconds()).isEqualTo(trip.latencyUs()[0] / 1e6);
        assertThat(lines[2]).contains("\"latency_us_p50\":", "\"latency_us_p99\":", "\"latency_us_p999\":");
        TasksBenchCommand.Result chain = TasksBenchCommand.Result.fromJson(lines[3]);
        assertThat(chain.workload()).isEqualTo("chain");
        assertThat(chain.n()).isEqualTo(300);
        assertThat(chain.tasksPerSecond()).isPositive();
        assertThat(chain.layout()).isEqualTo(io.dask4j.jobs.ProcessLayout.inproc());
    }

    @Test
    @Timeout(60)
    void runsOnlyTheWorkloadsAsked() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        int code = new CommandLine(new TasksBenchCommand(out)).execute("--backend", "inproc", "--workload", "chain,round-trip",
                "--chain", "50", "--rounds", "20", "--repeat", "1", "--json");
        assertThat(code).isZero();
        String[] lines = bytes.toString(StandardCharsets.UTF_8).strip().split("\n");
        assertThat(lines).hasSize(2);
        assertThat(TasksBenchCommand.Result.fromJson(lines[0]).workload()).isEqualTo("chain");
        assertThat(TasksBenchCommand.Result.fromJson(lines[1]).workload()).isEqualTo("round-trip");
    }

    @Test
    @Timeout(90)
    void withTheDashboardItServesThePagePollsItsApiAndSaysSo() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        int code = new CommandLine(new TasksBenchCommand(out)).execute("--backend", "inproc", "--n", "2000", "--repeat", "1",
                "--rounds", "200", "--chain", "1000", "--dashboard");
        assertThat(code).isZero();
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertThat(text).contains("map", "tree", "round-trip", "chain").containsPattern(
                "dashboard http://127\\.0\\.0\\.1:\\d+/ polled every 500 ms: [1-9]\\d* requests \\(0 failed\\)");
    }

    /**
     * The whole mpi path on a few tasks with the client beside the scheduler: mpirun, 3 ranks (2 workers), the
     * four results back from rank 0, each saying so.
     */
    @Test
    @Timeout(180)
    void overMpiTheClientRankMeasuresAndTheLauncherPrintsTheResults() {
        boolean present = false;
        for (String d : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
            present |= Files.isExecutable(Path.of(d, "mpirun.openmpi"));
        }
        Assumptions.assumeTrue(present || System.getenv("DASK4J_REQUIRE_MPI") != null, "mpirun.openmpi not installed");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        int code = new CommandLine(new TasksBenchCommand(out)).execute("--backend", "mpi", "--mpi", "openmpi", "--n", "300",
                "--repeat", "1", "--rounds", "100", "--chain", "200", "--client-rank", "0", "--timeout", "150", "--json");
        String text = bytes.toString(StandardCharsets.UTF_8).strip();
        assertThat(code).as(text).isZero();
        String[] lines = text.split("\n");
        assertThat(lines).hasSize(4);
        for (String line : lines) {
            assertThat(TasksBenchCommand.Result.fromJson(line).layout()).isEqualTo(io.dask4j.jobs.ProcessLayout.mpi(2, 0));
            assertThat(line).contains("\"processes\":3", "\"client_rank\":0");
        }
        assertThat(TasksBenchCommand.Result.fromJson(lines[0])).satisfies(r -> {
            assertThat(r.backend()).isEqualTo("mpi");
            assertThat(r.workload()).isEqualTo("map");
            assertThat(r.n()).isEqualTo(300);
            assertThat(r.tasksPerSecond()).isPositive();
        });
        assertThat(TasksBenchCommand.Result.fromJson(lines[1]).n()).isEqualTo(599);
        assertThat(TasksBenchCommand.Result.fromJson(lines[2]).latencyUs()).hasSize(3);
        assertThat(TasksBenchCommand.Result.fromJson(lines[3]).workload()).isEqualTo("chain");
    }

    @Test
    void theMpiJobRunsWorkersPlusTwoRanksWithTheClassPathFirst() {
        TasksBenchCommand cmd = new TasksBenchCommand();
        new CommandLine(cmd).parseArgs("--backend", "mpi", "--workers", "3", "--protocol", "tcp", "--n", "1000");
        List<String> line = MpiTasksJob.command(cmd, Path.of("/tmp/logs"));
        assertThat(line.get(line.indexOf("-np") + 1)).isEqualTo("5");
        assertThat(line.get(line.indexOf("--protocol") + 1)).isEqualTo("tcp");
        // Open MPI's mpirun rewrites only the argument after the first one containing "cp" (JvmFlags.classPathFirst).
        assertThat(line.subList(line.indexOf("-np") + 3, line.size()))
                .startsWith(JvmFlags.classPathFirst(System.getProperty("java.class.path")).toArray(String[]::new));
        assertThat(line).contains("--in-mpi-job", TasksBenchCommand.class.getName());
        assertThat(line.get(line.indexOf("--n") + 1)).isEqualTo("1000");
        assertThat(line.get(line.indexOf("--client-rank") + 1)).isEqualTo("1");
    }

    @Test
    void withTheClientBesideTheSchedulerTheJobRunsOneRankFewer() {
        TasksBenchCommand cmd = new TasksBenchCommand();
        new CommandLine(cmd).parseArgs("--backend", "mpi", "--workers", "3", "--client-rank", "0");
        List<String> line = MpiTasksJob.command(cmd, Path.of("/tmp/logs"));
        assertThat(line.get(line.indexOf("-np") + 1)).isEqualTo("4");
        assertThat(line.get(line.indexOf("--client-rank") + 1)).isEqualTo("0");
    }

    @Test
    void theDashboardIsRefusedOverMpi() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CommandLine line = new CommandLine(new TasksBenchCommand());
        line.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
        assertThat(line.execute("--backend", "mpi", "--dashboard")).isNotZero();
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--dashboard works with inproc and tcp only");
    }

    /**
     * Counts under 1 and unknown names are refused before any cluster starts, with the message, the usage and
     * exit code 2; before, {@code --workers 0} hung and {@code --n 0} failed with a NoSuchElementException.
     */
    @ParameterizedTest
    @Timeout(30)
    @CsvSource(delimiter = '|', textBlock = """
            --workers 0                  | --workers must be at least 1, got 0
            --threads 0                  | --threads must be at least 1, got 0
            --n 0                        | --n must be at least 1, got 0
            --repeat 0                   | --repeat must be at least 1, got 0
            --backend mpi --mpi bogus    | unknown --mpi 'bogus': expected openmpi or mpich
            --backend mpi --protocol udp | --protocol: unknown protocol 'udp': expected auto, mpi or tcp
            --backend mpi --timeout 0    | --timeout must be at least 1, got 0
            --backend mpi --client-rank 2 | --client-rank must be 0 or 1, not 2
            --rounds 0                   | --rounds must be at least 1, got 0
            --workload map,spin          | unknown --workload 'spin': expected one of [map, tree, round-trip, chain]
            """)
    void badCountsAndNamesAreRefusedBeforeAnythingStarts(String args, String message) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CommandLine line = new CommandLine(new TasksBenchCommand());
        line.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
        assertThat(line.execute(args.split(" "))).isEqualTo(2);
        String text = err.toString(StandardCharsets.UTF_8);
        assertThat(text.lines().findFirst().orElseThrow()).isEqualTo(message);
        assertThat(text).contains("Usage: tasks");
    }
}
