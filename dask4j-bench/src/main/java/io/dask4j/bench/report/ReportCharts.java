package io.dask4j.bench.report;

import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.Styler;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;

/**
 * The report's SVG charts, drawn by XChart and written through its VectorGraphics2D export: comm latency and
 * bandwidth against message size (log axes), tasks per second and round-trip latency by backend, seed workload
 * times by backend. A chart without data is not written. Static and stateless.
 */
final class ReportCharts {
    static final int WIDTH = 800;
    static final int HEIGHT = 500;

    private ReportCharts() {
    }

    /** Writes the charts that have data into {@code dir}; returns their file names, in the report's order. */
    static List<String> write(ReportData data, Path dir) throws IOException {
        List<String> files = new ArrayList<>();
        if (!data.comm.isEmpty()) {
            save(bySize(data, "Comm round trip (median) by message size", "latency, microseconds", true,
                    ReportData.CommRow::latencyUsMedian), dir, "comm-latency", files);
            save(bySize(data, "Comm bandwidth by message size", "bandwidth, GB/s", false,
                    ReportData.CommRow::bandwidthGBps), dir, "comm-bandwidth", files);
        }
        List<ReportData.TaskRow> maps = data.tasks.stream().filter(t -> t.workload().equals("map")).toList();
        if (!maps.isEmpty()) {
            save(bars("Tasks per second (map) by backend", "tasks/s", rows(maps, ReportData.TaskRow::backend,
                    ReportData.TaskRow::tasksPerSecond)), dir, "tasks-per-second", files);
        }
        List<ReportData.TaskRow> trips = data.tasks.stream().filter(t -> !Double.isNaN(t.latencyUsP50())).toList();
        if (!trips.isEmpty()) {
            save(bars("Task round trip (submit to result, p50) by backend", "microseconds", rows(trips,
                    ReportData.TaskRow::backend, ReportData.TaskRow::latencyUsP50)), dir, "task-round-trip", files);
        }
        if (!data.seed.isEmpty()) {
            save(bars("Seed workload (median of the timed runs) by backend", "seconds", rows(data.seed,
                    ReportData.SeedRow::backend, ReportData.SeedRow::medianSeconds)), dir, "seed", files);
        }
        return files;
    }

    private static XYChart bySize(ReportData data, String title, String yTitle, boolean logY,
                                  ToDoubleFunction<ReportData.CommRow> y) {
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle("message size, bytes")
                .yAxisTitle(yTitle).build();
        chart.getStyler().setXAxisLogarithmic(true).setYAxisLogarithmic(logY).setLegendPosition(Styler.LegendPosition.InsideNW);
        Map<String, List<ReportData.CommRow>> series = new LinkedHashMap<>();
        for (ReportData.CommRow r : data.comm) {
            series.computeIfAbsent(r.series(), s -> new ArrayList<>()).add(r);
        }
        series.forEach((name, rows) -> {
            List<ReportData.CommRow> kept = rows.stream().filter(positive(y)).toList();
            if (!kept.isEmpty()) {
                chart.addSeries(name, kept.stream().mapToDouble(r -> r.sizeBytes()).toArray(), kept.stream().mapToDouble(y).toArray());
            }
        });
        return chart;
    }

    /** Log axes cannot show zero: a figure too small to measure is left out of the chart (the table has it). */
    private static Predicate<ReportData.CommRow> positive(ToDoubleFunction<ReportData.CommRow> y) {
        return r -> y.applyAsDouble(r) > 0;
    }

    private static <T> Map<String, Double> rows(List<T> rows, java.util.function.Function<T, String> label, ToDoubleFunction<T> value) {
        Map<String, Double> out = new LinkedHashMap<>();
        for (T r : rows) {
            out.put(label.apply(r), value.applyAsDouble(r));
        }
        return out;
    }

    private static CategoryChart bars(String title, String yTitle, Map<String, Double> values) {
        CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle("backend")
                .yAxisTitle(yTitle).build();
        chart.getStyler().setLegendVisible(false);
        chart.getStyler().setLabelsVisible(true);
        chart.addSeries(yTitle, new ArrayList<>(values.keySet()), new ArrayList<>(values.values()));
        return chart;
    }

    private static void save(Chart<?, ?> chart, Path dir, String name, List<String> files) throws IOException {
        VectorGraphicsEncoder.saveVectorGraphic(chart, dir.resolve(name).toString(), VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
        files.add(name + ".svg");
    }
}
