package io.dask4j.bench.report;

import org.jfree.chart.ChartFactory;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.labels.StandardCategoryItemLabelGenerator;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.text.TextUtils;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import org.jfree.svg.SVGGraphics2D;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Rectangle;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.FieldPosition;
import java.text.NumberFormat;
import java.text.ParsePosition;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * The report's SVG charts, drawn by JFreeChart and written by JFreeSVG, whose text stays text ({@code <text>}
 * elements: small files, searchable, selectable): comm latency and bandwidth against message size (log axes), tasks
 * per second and round-trip latency by backend, seed workload times by backend. A chart without data is not
 * written. Static and stateless; JFreeChart draws headless (no display needed).
 */
final class ReportCharts {
    static final int WIDTH = 800;
    static final int HEIGHT = 500;
    /** Okabe and Ito's colours, told apart with every kind of colour blindness (JFreeChart's own include yellow). */
    private static final Color[] PALETTE = {new Color(0x0072B2), new Color(0xD55E00), new Color(0x009E73),
        new Color(0xCC79A7), new Color(0xE69F00), new Color(0x56B4E9), new Color(0x000000)};

    static {
        // JFreeChart draws rotated text (the vertical axis title) through a TextLayout by default, a workaround for
        // old JDKs' Graphics2D that an SVG writer turns into outlines; Java 2D's drawString rotates correctly.
        TextUtils.setUseDrawRotatedStringWorkaround(false);
    }

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

    private static JFreeChart bySize(ReportData data, String title, String yTitle, boolean logY,
                                     ToDoubleFunction<ReportData.CommRow> y) {
        XYSeriesCollection dataset = new XYSeriesCollection();
        Map<String, XYSeries> series = new LinkedHashMap<>();
        for (ReportData.CommRow r : data.comm) {
            // Log axes cannot show zero: a figure too small to measure is left out of the chart (the table has it).
            if (y.applyAsDouble(r) > 0) {
                series.computeIfAbsent(r.series(), XYSeries::new).add(r.sizeBytes(), y.applyAsDouble(r));
            }
        }
        series.values().forEach(dataset::addSeries);
        JFreeChart chart = ChartFactory.createXYLineChart(title, "message size, bytes", yTitle, dataset,
                PlotOrientation.VERTICAL, true, false, false);
        XYPlot plot = chart.getXYPlot();
        PlainLogAxis sizes = new PlainLogAxis("message size, bytes");
        plot.setDomainAxis(sizes);
        if (logY) {
            PlainLogAxis values = new PlainLogAxis(yTitle);
            plot.setRangeAxis(values);
            double min = dataset.getRangeLowerBound(false);
            double max = dataset.getRangeUpperBound(false);
            if (dataset.getSeriesCount() > 0 && max / min < 10) {
                values.spanDecades(min, max);   // else no power of ten, so no label, might fall inside the range
            }
        }
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
        for (int i = 0; i < dataset.getSeriesCount(); i++) {
            renderer.setSeriesPaint(i, PALETTE[i % PALETTE.length]);
            renderer.setSeriesStroke(i, new BasicStroke(1.5f));
        }
        plot.setRenderer(renderer);
        plain(chart);
        return chart;
    }

    private static <T> Map<String, Double> rows(List<T> rows, Function<T, String> label, ToDoubleFunction<T> value) {
        Map<String, Double> out = new LinkedHashMap<>();
        for (T r : rows) {
            out.put(label.apply(r), value.applyAsDouble(r));
        }
        return out;
    }

    private static JFreeChart bars(String title, String yTitle, Map<String, Double> values) {
        DefaultCategoryDataset dataset = new DefaultCategoryDataset();
        values.forEach((backend, v) -> dataset.addValue(v, yTitle, backend));
        JFreeChart chart = ChartFactory.createBarChart(title, "backend", yTitle, dataset, PlotOrientation.VERTICAL,
                false, false, false);
        CategoryPlot plot = chart.getCategoryPlot();
        BarRenderer renderer = (BarRenderer) plot.getRenderer();
        renderer.setSeriesPaint(0, PALETTE[0]);
        renderer.setBarPainter(new StandardBarPainter());   // flat bars: no gradient, which SVG would carry as defs
        renderer.setShadowVisible(false);
        renderer.setDefaultItemLabelGenerator(new StandardCategoryItemLabelGenerator("{2}", new AsInTables()));
        renderer.setDefaultItemLabelsVisible(true);
        plain(chart);
        return chart;
    }

    /** Bar labels written as the report's tables write figures ({@link ReportMarkdown#f}). */
    private static final class AsInTables extends NumberFormat {
        private static final long serialVersionUID = 1L;

        @Override
        public StringBuffer format(double number, StringBuffer to, FieldPosition pos) {
            return to.append(ReportMarkdown.f(number));
        }

        @Override
        public StringBuffer format(long number, StringBuffer to, FieldPosition pos) {
            return to.append(ReportMarkdown.f(number));
        }

        @Override
        public Number parse(String source, ParsePosition pos) {
            throw new UnsupportedOperationException("labels are written, not read");
        }
    }

    /** White ground with grey grid lines (JFreeChart's default grid is white on grey). */
    private static void plain(JFreeChart chart) {
        chart.setBackgroundPaint(Color.WHITE);
        chart.getPlot().setBackgroundPaint(Color.WHITE);
        if (chart.getPlot() instanceof XYPlot xy) {
            xy.setDomainGridlinePaint(Color.LIGHT_GRAY);
            xy.setRangeGridlinePaint(Color.LIGHT_GRAY);
        } else if (chart.getPlot() instanceof CategoryPlot category) {
            category.setRangeGridlinePaint(Color.LIGHT_GRAY);
        }
    }

    private static void save(JFreeChart chart, Path dir, String name, List<String> files) throws IOException {
        SVGGraphics2D g = new SVGGraphics2D(WIDTH, HEIGHT);
        chart.draw(g, new Rectangle(0, 0, WIDTH, HEIGHT));
        Files.writeString(dir.resolve(name + ".svg"), g.getSVGDocument(), StandardCharsets.UTF_8);
        files.add(name + ".svg");
    }
}
