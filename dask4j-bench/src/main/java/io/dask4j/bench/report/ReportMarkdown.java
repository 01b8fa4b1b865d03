package io.dask4j.bench.report;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The report's Markdown: the machine, one table per benchmark family, the charts, every benchmark's run (time, bound,
 * outcome, results kept), and the benchmarks that did not finish, whose missing figures the tables then lack.
 */
final class ReportMarkdown {
    private ReportMarkdown() {
    }

    static String render(MachineInfo machine, ReportData data, List<String> charts, List<BenchRun> runs,
                         List<String> failures, boolean quick) {
        StringBuilder b = new StringBuilder("# dask4j benchmark report\n\n");
        if (quick) {
            b.append("A quick run (`--quick`): small sizes and few rounds, to check the report, not to measure.\n\n");
        }
        b.append("## Machine\n\n").append(machine.toMarkdown()).append('\n');
        if (!failures.isEmpty()) {
            b.append("**Incomplete:** ").append(failures.size()).append(failures.size() == 1 ? " benchmark" : " benchmarks")
                    .append(" did not finish (listed at the end); the tables and charts lack what they did not measure.\n\n");
        }
        data.notes.forEach(n -> b.append(n).append("\n\n"));
        b.append("## Comm round trips\n\n| series | size (bytes) | latency median (us) | latency p99 (us) | bandwidth (GB/s) |\n");
        b.append("| --- | ---: | ---: | ---: | ---: |\n");
        // A series at a time (the MPI benchmark runs a job per size, each printing both layers), sizes in run order.
        Map<String, List<ReportData.CommRow>> bySeries = data.comm.stream()
                .collect(Collectors.groupingBy(ReportData.CommRow::series, LinkedHashMap::new, Collectors.toList()));
        for (List<ReportData.CommRow> series : bySeries.values()) {
            for (ReportData.CommRow r : series) {
                b.append(row(r.series(), Long.toString(r.sizeBytes()), f(r.latencyUsMedian()), f(r.latencyUsP99()),
                        f(r.bandwidthGBps())));
            }
        }
        b.append("\n## Tasks\n\n| backend | workload | tasks/s | round trip p50 (us) | round trip p99 (us) |\n");
        b.append("| --- | --- | ---: | ---: | ---: |\n");
        for (ReportData.TaskRow r : data.tasks) {
            b.append(row(r.backend(), r.workload(), f(r.tasksPerSecond()), f(r.latencyUsP50()), f(r.latencyUsP99())));
        }
        b.append("\n## Seed workload\n\n| backend | n | median (s) | min (s) | max (s) |\n| --- | ---: | ---: | ---: | ---: |\n");
        for (ReportData.SeedRow r : data.seed) {
            b.append(row(r.backend(), Long.toString(r.n()), f(r.medianSeconds()), f(r.minSeconds()), f(r.maxSeconds())));
        }
        b.append("\n## Charts\n\n");
        for (String c : charts) {
            b.append("![").append(c.replace(".svg", "")).append("](").append(c).append(")\n\n");
        }
        b.append("## Runs\n\n| benchmark | seconds | bound (s) | outcome | results |\n| --- | ---: | ---: | --- | ---: |\n");
        for (BenchRun r : runs) {
            b.append(row(r.name(), String.format(Locale.ROOT, "%.0f", r.seconds()), Long.toString(r.boundSeconds()),
                    r.outcome(), Integer.toString(r.results())));
        }
        if (!failures.isEmpty()) {
            b.append("\n## Benchmarks that did not finish\n\n");
            b.append("What each printed before it stopped is in the tables above; the rest of it is missing.\n\n");
            failures.forEach(f -> b.append("- ").append(f).append('\n'));
        }
        return b.toString();
    }

    private static String row(String... cells) {
        StringBuilder b = new StringBuilder("|");
        for (String c : cells) {
            b.append(' ').append(c.replace("|", "\\|")).append(" |");   // a cell's own bar is not a column
        }
        return b.append('\n').toString();
    }

    /** A figure as the report writes it: whole above 100, else three significant digits; NaN (none) empty. */
    static String f(double v) {
        if (Double.isNaN(v)) {
            return "";
        }
        return v >= 100 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.3g", v);
    }
}
