package io.dask4j.bench.comm;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
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
}
