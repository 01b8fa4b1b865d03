package io.dask4j.bench.report;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import picocli.CommandLine;

import javax.xml.parsers.DocumentBuilderFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code bench report --quick}: the report's structure, and charts that are well-formed SVG with their series. */
@Timeout(300)
class ReportCommandTest {
    @TempDir
    Path dir;

    @Test
    void aQuickReportHasTheMachineTablesAndParsableSvgCharts() throws Exception {
        int exit = new CommandLine(new ReportCommand()).execute("--quick", "--out", dir.toString());
        String report = Files.readString(dir.resolve("report.md"));

        assertThat(exit).as(report).isZero();
        assertThat(report).contains("## Machine", "- cores: " + Runtime.getRuntime().availableProcessors(), "- CPU: ", "- memory: ")
                .containsPattern("- MPI (openmpi|mpich|: none installed)")
                .contains("## Comm round trips", "## Tasks", "## Seed workload", "## Charts")
                .containsPattern("\\| inproc \\| 8 \\| [0-9.]+ \\|")
                .containsPattern("\\| inproc \\| 65536 \\|")
                .containsPattern("\\| inproc \\| map \\| [0-9.]+ \\|")
                .containsPattern("\\| inproc \\| round-trip \\| [0-9.]+ \\| [0-9.]+ \\|")
                .containsPattern("\\| inproc \\| 400 \\| [0-9.]+ \\|")
                .containsPattern("\\| comm-inproc \\| [0-9]+ \\| 240 \\| ok \\| 2 \\|")
                .containsPattern("\\| tasks-inproc \\| [0-9]+ \\| 420 \\| ok \\| 2 \\|")
                .containsPattern("\\| seed-inproc \\| [0-9]+ \\| 600 \\| ok \\| 1 \\|")
                .doesNotContain("did not finish", "Incomplete");
        List<String> charts = List.of("comm-latency.svg", "comm-bandwidth.svg", "tasks-per-second.svg", "task-round-trip.svg", "seed.svg");
        DocumentBuilderFactory xml = DocumentBuilderFactory.newInstance();
        xml.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);   // no fetch of the SVG DTD
        for (String chart : charts) {
            assertThat(report).contains("](" + chart + ")");
            Document svg = xml.newDocumentBuilder().parse(dir.resolve(chart).toFile());
            assertThat(svg.getDocumentElement().getTagName()).as(chart).isEqualTo("svg");
            // The title, the axis titles and tick labels are text (ReportChartsTest checks which).
            assertThat(svg.getElementsByTagName("text").getLength()).as(chart + " has its text").isGreaterThanOrEqualTo(4);
        }
        assertThat(dir.resolve("logs")).isDirectoryContaining("glob:**tasks-inproc.log");
    }

    @Test
    void resultLinesAreTheJsonObjectsOfABenchmarksOutput() {
        List<Map<String, Object>> results = BenchProcess.parse(List.of("WARN something", "{\"size_bytes\":8,\"x\":1.5}",
                "{not json", "{\"size_bytes\":16}"));
        assertThat(results).extracting(r -> r.get("size_bytes")).containsExactly(8, 16);
    }
}
