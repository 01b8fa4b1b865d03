package io.dask4j.bench.report;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The report's charts: well-formed SVG whose titles, axis titles, series and backends are text, not outlines. */
class ReportChartsTest {
    @TempDir
    Path dir;

    @Test
    void chartsCarryTheirTitlesAxisTitlesAndLabelsAsSvgText() throws Exception {
        ReportData data = new ReportData();
        data.addComm("tcp", List.of(comm(8, 15.5, 0.0005), comm(65536, 96.4, 0.68), comm(16 << 20, 92602, 0.18)));
        data.addMpiComm("openmpi", List.of(Map.of("layer", "binding", "size_bytes", 8, "latency_us_median", 0.2,
                "latency_us_p99", 1.0, "bandwidth_gbps", 0.03)));
        data.addTasks("inproc", List.of(Map.of("workload", "map", "tasks_per_s", 9919.0)));
        data.addTasks("mpi (mpich)", List.of(Map.of("workload", "round-trip", "tasks_per_s", 800.0,
                "latency_us_p50", 1234.0, "latency_us_p99", 4000.0)));
        data.addSeed("Python Dask", List.of(Map.of("n", 8000, "median_s", 4.8, "min_s", 4.5, "max_s", 5.1)));

        List<String> files = ReportCharts.write(data, dir);

        assertThat(files).containsExactly("comm-latency.svg", "comm-bandwidth.svg", "tasks-per-second.svg",
                "task-round-trip.svg", "seed.svg");
        assertThat(texts("comm-latency.svg")).contains("Comm round trip (median) by message size",
                "message size, bytes", "latency, microseconds", "tcp", "raw MPI (openmpi)",
                "10", "1,000", "10,000", "1,000,000");   // powers of ten, plainly written
        assertThat(texts("comm-bandwidth.svg")).contains("message size, bytes", "bandwidth, GB/s");
        assertThat(texts("tasks-per-second.svg")).contains("backend", "tasks/s", "inproc", "9919");
        assertThat(texts("task-round-trip.svg")).contains("microseconds", "mpi (mpich)", "1234")
                .doesNotContain("inproc");   // a backend with no round-trip figure gets no bar
        assertThat(texts("seed.svg")).contains("seconds", "Python Dask", "4.80");
        for (String f : files) {
            // Text as glyph outlines made each file 0.25-1 MB; as text a chart is a few tens of kB.
            assertThat(Files.size(dir.resolve(f))).as(f).isLessThan(100_000);
        }
    }

    @Test
    void noDataNoCharts() throws Exception {
        assertThat(ReportCharts.write(new ReportData(), dir)).isEmpty();
        assertThat(dir).isEmptyDirectory();
    }

    private static Map<String, Object> comm(long size, double latencyUs, double gbps) {
        return Map.of("size_bytes", size, "latency_us_median", latencyUs, "latency_us_p99", latencyUs * 2,
                "bandwidth_gbps", gbps);
    }

    /** The content of every {@code <text>} element (with its {@code <tspan>}s) of an SVG file. */
    private List<String> texts(String file) throws Exception {
        DocumentBuilderFactory xml = DocumentBuilderFactory.newInstance();
        xml.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        Document svg = xml.newDocumentBuilder().parse(dir.resolve(file).toFile());
        assertThat(svg.getDocumentElement().getTagName()).as(file).isEqualTo("svg");
        NodeList nodes = svg.getElementsByTagName("text");
        List<String> out = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) {
            out.add(nodes.item(i).getTextContent().strip());
        }
        return out;
    }
}
