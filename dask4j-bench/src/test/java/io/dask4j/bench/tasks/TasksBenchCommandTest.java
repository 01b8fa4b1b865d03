package io.dask4j.bench.tasks;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

import static org.assertj.core.api.Assertions.assertThat;

class TasksBenchCommandTest {
    @Test
    @Timeout(60)
    void printsOneJsonObjectPerWorkload() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        int code = new CommandLine(new TasksBenchCommand(out)).execute("--backend", "inproc", "--n", "200", "--repeat", "1", "--json");
        assertThat(code).isZero();
        String[] lines = bytes.toString(StandardCharsets.UTF_8).strip().split("\n");
        assertThat(lines).hasSize(3);
        assertThat(lines[0]).startsWith("{\"backend\":\"inproc\",\"workload\":\"map\",\"n\":200,\"tasks_per_s\":");
        assertThat(lines[1]).contains("\"workload\":\"tree\",\"n\":399");
        assertThat(lines[2]).contains("\"workload\":\"round-trip\",\"n\":1").contains("\"seconds\":");
    }

    @Test
    @Timeout(90)
    void withTheDashboardItServesThePagePollsItsApiAndSaysSo() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        int code = new CommandLine(new TasksBenchCommand(out)).execute("--backend", "inproc", "--n", "2000", "--repeat", "1", "--dashboard");
        assertThat(code).isZero();
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertThat(text).contains("map", "tree", "round-trip").containsPattern(
                "dashboard http://127\\.0\\.0\\.1:\\d+/ polled every 500 ms: [1-9]\\d* requests \\(0 failed\\)");
    }
}
