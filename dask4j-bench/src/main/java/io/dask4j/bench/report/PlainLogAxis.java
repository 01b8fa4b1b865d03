package io.dask4j.bench.report;

import org.jfree.chart.axis.AxisState;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.LogTick;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTick;
import org.jfree.chart.axis.ValueTick;
import org.jfree.chart.ui.RectangleEdge;

import java.awt.Graphics2D;
import java.awt.geom.Rectangle2D;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.text.NumberFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A base-10 log axis whose tick labels are plain strings (1,000 rather than 10 with a superscript 3). JFreeChart
 * draws a {@link LogAxis}'s labels as attributed strings through a {@code TextLayout}, which an SVG writer can only
 * turn into glyph outlines; plain labels go through {@code drawString} and stay SVG text. Used while one chart is
 * drawn, on that thread.
 */
final class PlainLogAxis extends LogAxis {
    private static final long serialVersionUID = 1L;

    private final NumberFormat format = new DecimalFormat("#,##0.###", DecimalFormatSymbols.getInstance(Locale.ROOT));

    PlainLogAxis(String title) {
        super(title);
        setNumberFormatOverride(format);
        // Tick units count decades here: whole ones put labels at powers of ten (not at 31.623, 10^1.5).
        setStandardTickUnits(NumberAxis.createIntegerTickUnits());
    }

    /** Shows whole decades from the one holding {@code min} to the one holding {@code max} (both above zero). */
    void spanDecades(double min, double max) {
        double lower = Math.pow(10, Math.floor(Math.log10(min)));
        double upper = Math.pow(10, Math.ceil(Math.log10(max)));
        setRange(lower, upper > lower ? upper : lower * 10);
    }

    @Override
    @SuppressWarnings({"rawtypes", "unchecked"})
    public List refreshTicks(Graphics2D g2, AxisState state, Rectangle2D dataArea, RectangleEdge edge) {
        List<ValueTick> plain = new ArrayList<>();
        for (Object t : super.refreshTicks(g2, state, dataArea, edge)) {
            if (t instanceof LogTick log) {
                String label = log.getAttributedLabel() == null ? null : format.format(log.getValue());
                plain.add(new NumberTick(log.getTickType(), log.getValue(), label, log.getTextAnchor(),
                        log.getRotationAnchor(), log.getAngle()));
            } else {
                plain.add((ValueTick) t);
            }
        }
        return plain;
    }
}
