package io.dask4j.bench.report;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** A benchmark that fails or outlives its bound: killed, recorded as such, and what it printed before still counts. */
@Timeout(120)
class BenchProcessTest {
    @TempDir
    Path dir;

    @Test
    void aStuckBenchmarkIsKilledAtItsBoundAndKeepsItsEarlierResults() throws Exception {
        BenchProcess bench = new BenchProcess(dir.resolve("logs"));

        // Prints one result, then hangs (as the Open MPI comm job once did at its largest size).
        List<Map<String, Object>> results = bench.run("stuck", 3, List.of("sh", "-c",
                "echo '{\"size_bytes\":8}'; exec sleep 600"));

        assertThat(results).extracting(r -> r.get("size_bytes")).containsExactly(8);
        BenchRun run = bench.runs.getFirst();
        assertThat(run.outcome()).isEqualTo("timed out after 3 s");
        assertThat(run.results()).isEqualTo(1);
        assertThat(run.seconds()).isGreaterThanOrEqualTo(3);
        assertThat(bench.failures()).singleElement().asString().startsWith("stuck: timed out after 3 s (log: ");
    }

    @Test
    void everyRunIsRecordedAndOnlyTheFailedOnesAreFailures() throws Exception {
        BenchProcess bench = new BenchProcess(dir.resolve("logs"));

        bench.run("fine", 60, List.of("sh", "-c", "echo '{\"a\":1}'; echo '{\"a\":2}'"));
        bench.run("broken", 60, List.of("sh", "-c", "echo '{\"a\":1}'; echo 'it broke | badly'; echo '{\"a\":2'; exit 3"));
        bench.run("absent", 60, List.of(dir.resolve("no-such-program").toString()));

        assertThat(bench.runs).extracting(BenchRun::name, BenchRun::outcome, BenchRun::results).containsExactly(
                org.assertj.core.groups.Tuple.tuple("fine", "ok", 2),
                org.assertj.core.groups.Tuple.tuple("broken", "exit code 3: it broke | badly", 1),
                org.assertj.core.groups.Tuple.tuple("absent", bench.runs.get(2).outcome(), 0));
        assertThat(bench.runs.get(2).outcome()).startsWith("could not start: ");
        assertThat(bench.failures()).hasSize(2).allMatch(f -> f.startsWith("broken: exit code 3") || f.startsWith("absent: could not start"));

        ReportData data = new ReportData();
        for (int size : List.of(8, 1024)) {   // as the MPI comm jobs report: one job per size, both layers each
            data.addMpiComm("mpich", List.of(comm("binding", size), comm("comm", size)));
        }
        String report = ReportMarkdown.render(new MachineInfo(2, 1L << 30, "cpu", "jvm", Map.of()), data,
                List.of(), bench.runs, bench.failures(), false);
        assertThat(report).containsSubsequence("| raw MPI (mpich) | 8 |", "| raw MPI (mpich) | 1024 |",
                "| mpi (mpich) | 8 |", "| mpi (mpich) | 1024 |");
        assertThat(report).contains("**Incomplete:** 2 benchmarks did not finish", "| fine | ", " | 60 | ok | 2 |",
                " | 60 | exit code 3: it broke \\| badly | 1 |", "## Benchmarks that did not finish", "- broken: exit code 3");
    }

    private static Map<String, Object> comm(String layer, int size) {
        return Map.of("layer", layer, "size_bytes", size, "latency_us_median", 1.5, "latency_us_p99", 3.0,
                "bandwidth_gbps", 0.5);
    }
}
