package io.dask4j.bench.mpi;

import io.dask4j.comm.JvmFlags;
import io.dask4j.mpi.launch.MpiCommandLine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import io.dask4j.jobs.JobStoppedException;
import io.dask4j.jobs.MpiJobs;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MpiCommBenchCommandTest {

    private static MpiCommBenchCommand parse(String... args) {
        MpiCommBenchCommand command = new MpiCommBenchCommand();
        new CommandLine(command).parseArgs(args);
        return command;
    }

    @Test
    void openMpiJobsRunTwoRanksOfThisJavaWithTheClassPathFirst() {
        List<String> line = parse("--mpi", "openmpi", "--sizes", "8,1024", "--iterations", "100").command();
        assertThat(line).startsWith(MpiCommandLine.mpirun("openmpi").launcherOptions(2).toArray(String[]::new));
        assertThat(line).contains("--allow-run-as-root", "--oversubscribe", "--enable-native-access=ALL-UNNAMED",
                MpiBenchRank.class.getName(), "8,1024", "100", "native");
        assertThat(line.get(line.indexOf("-np") + 1)).isEqualTo("2");
        // Open MPI's mpirun rewrites only the argument after the first one containing "cp" (JvmFlags.classPathFirst).
        assertThat(line.subList(line.indexOf("-np") + 3, line.size()))
                .startsWith(JvmFlags.classPathFirst(System.getProperty("java.class.path")).toArray(String[]::new));
    }

    /** The ranks get plain byte counts, whatever notation the sizes were given in. */
    @Test
    void sizesWithUnitsReachTheRanksAsBytes() {
        List<String> line = parse("--sizes", "8,1KiB,2MiB").command();
        assertThat(line).contains("8,1024,2097152");
    }

    @Test
    void mpichJobsUseTheMpichLauncher() {
        List<String> line = parse("--mpi", "MPICH", "--heap-frames").command();
        assertThat(line).startsWith(MpiCommandLine.mpirun("mpich").launcherOptions(2).toArray(String[]::new));
        assertThat(line).contains("8,1024,1048576,16777216,67108864", "heap");
    }

    @Test
    void jvmArgumentsGoAfterTheClassPathBeforeTheMainClassAndMinRoundsLast() {
        List<String> line = parse("--mpi", "openmpi", "--jvm-arg=-Ddask4j.mpi.pooledFrameBytes=4096", "--jvm-arg=-Dlogs=/tmp/tcp",
                "--min-rounds", "60").command();
        assertThat(line).containsSubsequence("-cp", "-Ddask4j.mpi.pooledFrameBytes=4096", "-Dlogs=/tmp/tcp",
                MpiBenchRank.class.getName());
        assertThat(line.getLast()).isEqualTo("60");
    }

    @Test
    void anUnknownMpiIsACommandLineError() {
        assertThatThrownBy(() -> parse("--mpi", "lam").command())
                .isInstanceOf(CommandLine.ParameterException.class).hasMessageContaining("openmpi or mpich");
    }

    @Test
    void largeSizesGetFewerRoundsButAtLeastTen() {
        assertThat(MpiBenchRank.roundsFor(8, 20_000)).isEqualTo(20_000);
        assertThat(MpiBenchRank.roundsFor(64L << 20, 20_000)).isEqualTo(16);
        assertThat(MpiBenchRank.roundsFor(1L << 30, 20_000)).isEqualTo(10);
    }

    /** Counts the job cannot run are refused before mpirun starts, with the message, the usage and exit code 2. */
    @ParameterizedTest
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    @CsvSource(delimiter = '|', textBlock = """
            --iterations 0     | --iterations must be at least 1, got 0
            --sizes -5         | --sizes must be at least 1, got -5
            --min-rounds 0     | --min-rounds must be at least 1, got 0
            --idle-seconds 0   | --idle-seconds must be at least 1, got 0
            --timeout 0        | --timeout must be at least 1, got 0
            --mpi lam          | unknown --mpi 'lam': expected openmpi or mpich
            """)
    void badCountsAreRefusedBeforeTheJobStarts(String args, String message) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CommandLine line = new CommandLine(new MpiCommBenchCommand());
        line.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
        assertThat(line.execute(args.split(" "))).isEqualTo(2);
        String text = err.toString(StandardCharsets.UTF_8);
        assertThat(text.lines().findFirst().orElseThrow()).isEqualTo(message);
        assertThat(text).contains("Usage: comm-mpi");
    }

    /**
     * The timeout bounds the whole job: a job that hangs with its output open (a rank in the background holds
     * it) is killed, with what it printed before forwarded. Before, the output was read to its end first,
     * which never came (a separate thread: a read of the job's output does not end when interrupted).
     */
    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aJobThatHangsWithItsOutputOpenIsKilledAtTheTimeout() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        MpiCommBenchCommand command = new MpiCommBenchCommand(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        new CommandLine(command).parseArgs("--timeout", "1");
        int code = command.runJob(List.of("sh", "-c", "echo 'ROW measured before the hang'; sleep 120 & wait"));
        assertThat(code).isEqualTo(1);
        assertThat(bytes.toString(StandardCharsets.UTF_8)).contains("measured before the hang");
    }

    /** A job ended by a stop signal ends the command as stopped, as the seed bench's jobs do, not as a failure. */
    @Test
    @Timeout(30)
    void aJobEndedByAStopSignalIsStoppedNotFailed() {
        MpiCommBenchCommand command = new MpiCommBenchCommand(new PrintStream(new ByteArrayOutputStream(), true,
                StandardCharsets.UTF_8));
        new CommandLine(command).parseArgs("--timeout", "20");
        assertThatThrownBy(() -> command.runJob(List.of("sh", "-c", "kill -TERM $$")))
                .isInstanceOfSatisfying(JobStoppedException.class, e -> {
                    assertThat(e.exitCode()).isEqualTo(143);
                    assertThat(e).hasMessage("the job was stopped by SIGTERM");
                });
    }
}
