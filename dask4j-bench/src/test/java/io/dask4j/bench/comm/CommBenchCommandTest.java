package io.dask4j.bench.comm;

import static org.assertj.core.api.Assertions.assertThat;

import io.dask4j.bench.PingPongOptions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CommBenchCommandTest {

    private String run(String... args) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int code = new CommandLine(new CommBenchCommand(new PrintStream(bytes, true, StandardCharsets.UTF_8))).execute(args);
        assertThat(code).isZero();
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void inprocPrintsOneJsonObjectPerSizeWithTheAgreedKeys() {
        String out = run("--backend", "inproc", "--json", "--iterations", "50", "--sizes", "8,1024,1048576");
        assertThat(out.lines()).hasSize(3).allSatisfy(line -> assertThat(line)
                .startsWith("{\"backend\":\"inproc\",\"size_bytes\":")
                .contains("\"latency_us_median\":", "\"latency_us_p99\":", "\"bandwidth_gbps\":"));
        assertThat(out.lines().findFirst().orElseThrow()).contains("\"size_bytes\":8,");
    }

    @Test
    void tcpRunsAgainstAnEchoProcessAndPrintsATable() {
        String out = run("--backend", "tcp", "--iterations", "20", "--sizes", "8,65536");
        assertThat(out.lines()).hasSize(3);
        assertThat(out).contains("one-way p50", "tcp", "8 B", "64 KiB");
    }

    @Test
    void severalReceiveModesRunSideBySideEachOnItsOwnCommWithARepeatNumbered() {
        String out = run("--backend", "inproc", "--json", "--iterations", "40", "--sizes", "8,1024",
                "--receive", "read,push,push-virtual,read");
        assertThat(out.lines()).hasSize(8);
        assertThat(out.lines().filter(l -> l.contains("\"size_bytes\":8,")).map(l -> l.replaceAll(".*\"receive\":\"([^\"]+)\".*", "$1")))
                .containsExactly("read", "push", "push-virtual", "read#2");
    }

    @Test
    void tcpPushEchoesFromInsideTheHandlersOfBothProcesses() {
        String out = run("--backend", "tcp", "--iterations", "20", "--sizes", "8,65536", "--receive", "push");
        assertThat(out.lines()).hasSize(3);
        assertThat(out).contains("receive", "push", "64 KiB");
    }

    @Test
    void anUnknownReceiveModeIsAUsageError() {
        int code = new CommandLine(new CommBenchCommand(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)))
                .setErr(new PrintWriter(new ByteArrayOutputStream(), true))
                .execute("--backend", "inproc", "--receive", "poll");
        assertThat(code).isEqualTo(2);
    }

    @Test
    void largeSizesGetFewerRoundsButAtLeastTen() {
        CommBenchCommand command = new CommBenchCommand();
        command.pingPong.iterations = 20_000;
        assertThat(command.roundsFor(8)).isEqualTo(20_000);
        assertThat(command.roundsFor(64L << 20)).isEqualTo(16);
        assertThat(command.roundsFor(1L << 40)).isEqualTo(10);
    }

    @Test
    void warmUpCoversAtLeast512MiBOfTrafficOrEveryRound() {
        assertThat(CommBenchCommand.warmupFor(64L << 20, 16)).isEqualTo(8);
        assertThat(CommBenchCommand.warmupFor(8, 20_000)).isEqualTo(20_000);
        assertThat(CommBenchCommand.warmupFor(1L << 30, 10)).isEqualTo(2);
    }

    /**
     * {@code --sizes} takes the notation its help prints for the default (8,1024,1MiB,16MiB,64MiB) and the
     * tables print (64 KiB); before, {@code --sizes 8,1MiB} failed with "'1MiB' is not a long".
     */
    @Test
    void sizesAreTakenInBytesOrWithUnits() {
        CommBenchCommand command = new CommBenchCommand();
        new CommandLine(command).parseArgs("--sizes", "8,1024,64KiB,1MiB,16m,2GiB");
        assertThat(command.pingPong.sizesOrDefault()).containsExactly(8, 1024, 64 << 10, 1 << 20, 16 << 20, 2L << 30);
    }

    @Test
    void theDefaultSizesInTheHelpAreValidSizes() {
        String help = new CommandLine(new CommBenchCommand()).getUsageMessage();
        String defaults = help.substring(help.indexOf("(default: 8,") + "(default: ".length());
        defaults = defaults.substring(0, defaults.indexOf(')'));
        CommBenchCommand command = new CommBenchCommand();
        new CommandLine(command).parseArgs("--sizes", defaults);
        assertThat(command.pingPong.sizesOrDefault()).containsExactly(PingPongOptions.DEFAULT_SIZES);
    }

    @Test
    void aSizeInAnUnknownNotationIsRefusedNamingIt() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CommandLine line = new CommandLine(new CommBenchCommand());
        line.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
        assertThat(line.execute("--backend", "inproc", "--sizes", "8,1XB")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8).lines().findFirst().orElseThrow())
                .contains("--sizes", "bad size '1XB'", "1MiB");
    }

    /**
     * Sizes and counts the ping-pong cannot run are refused with the message, the usage and exit code 2; before,
     * {@code --sizes -5} ended in a NegativeArraySizeException and {@code --iterations 0} ran 10 rounds a size.
     */
    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            --sizes 8,-5           | --sizes must be at least 1, got -5
            --sizes 0              | --sizes must be at least 1, got 0
            --sizes 3000000000     | --sizes must be at most 2147483647 bytes, got 3000000000
            --iterations 0         | --iterations must be at least 1, got 0
            """)
    void badSizesAndCountsAreRefused(String args, String message) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CommandLine line = new CommandLine(new CommBenchCommand());
        line.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
        assertThat(line.execute(("--backend inproc " + args).split(" "))).isEqualTo(2);
        String text = err.toString(StandardCharsets.UTF_8);
        assertThat(text.lines().findFirst().orElseThrow()).isEqualTo(message);
        assertThat(text).contains("Usage: comm");
    }
}
