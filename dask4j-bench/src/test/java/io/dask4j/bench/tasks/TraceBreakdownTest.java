package io.dask4j.bench.tasks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TraceBreakdownTest {

    /** Two processes' traces of three rounds: the steps' medians come out in timeline order, per process. */
    @Test
    void mergesTheProcessesTracesIntoMedianStepTimesOfTheCommonestPath(@TempDir Path dir) throws Exception {
        List<String> client = new ArrayList<>();
        List<String> worker = new ArrayList<>();
        long t = 1_000_000;
        long[] transit = {40_000, 50_000, 60_000};   // the worker's read comes 40, 50, 60 us after the write
        for (long gap : transit) {
            client.add(t + " 100 " + TraceBreakdown.START + " @main");
            client.add((t + 5_000) + " 100 write compute @main");
            worker.add((t + 5_000 + gap) + " 200 read compute @task");
            client.add((t + 5_000 + gap + 10_000) + " 100 " + TraceBreakdown.END + " @main");
            t += 1_000_000;
        }
        Files.write(dir.resolve("trace-100.txt"), client);
        Files.write(dir.resolve("trace-200.txt"), worker);
        Files.writeString(dir.resolve("other.txt"), "not a trace");

        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        assertThat(TraceBreakdown.print(dir, new PrintStream(bytes, true, StandardCharsets.UTF_8))).isTrue();
        List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();

        assertThat(lines.getFirst()).contains("3 of 3 traced rounds");
        assertThat(lines.get(2)).matches(" +5\\.0 +5\\.0  write compute @main \\[process 0]");
        assertThat(lines.get(3)).matches(" +50\\.0 +60\\.0  read compute @task \\[process 1]");
        assertThat(lines.get(4)).matches(" +10\\.0 +10\\.0  round trip ends @main \\[process 0]");
        assertThat(lines.get(5)).matches(" +65\\.0 +75\\.0  whole round trip");
    }

    @Test
    void noTracedRoundIsSaid(@TempDir Path dir) throws Exception {
        Files.write(dir.resolve("trace-1.txt"), List.of("5 1 write x @main"));
        assertThat(TraceBreakdown.print(dir, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8))).isFalse();
    }
}
