package io.dask4j.runtime.dashboard;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A strict little parser of Prometheus' text format (0.0.4), enough to check that {@code /metrics}
 * parses: every sample line is {@code name{labels} value}, every family is declared once by a TYPE line
 * before its samples, and its samples are contiguous.
 */
final class PrometheusTextParser {
    record Sample(String name, Map<String, String> labels, double value) {
    }

    private static final Pattern SAMPLE = Pattern.compile(
            "([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)\\})? (\\S+)");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:\\\\.|[^\"\\\\])*)\"(,|$)");
    private static final Set<String> TYPES = Set.of("counter", "gauge", "histogram", "summary", "untyped");

    private PrometheusTextParser() {
    }

    static List<Sample> parse(String text) {
        List<Sample> samples = new ArrayList<>();
        Set<String> declared = new HashSet<>();
        Set<String> finished = new HashSet<>();
        String current = null;
        int lineNo = 0;
        for (String line : text.split("\n", -1)) {
            lineNo++;
            if (line.isEmpty()) {
                continue;
            }
            if (line.startsWith("# HELP ")) {
                continue;
            }
            if (line.startsWith("# TYPE ")) {
                String[] p = line.split(" ");
                if (p.length != 4 || !TYPES.contains(p[3])) {
                    throw new IllegalArgumentException("line " + lineNo + ": bad TYPE: " + line);
                }
                if (!declared.add(p[2])) {
                    throw new IllegalArgumentException("line " + lineNo + ": family declared twice: " + p[2]);
                }
                if (current != null) {
                    finished.add(current);
                }
                current = p[2];
                continue;
            }
            if (line.startsWith("#")) {
                continue;
            }
            Matcher m = SAMPLE.matcher(line);
            if (!m.matches()) {
                throw new IllegalArgumentException("line " + lineNo + ": not a sample: " + line);
            }
            String name = m.group(1);
            if (!name.equals(current) || finished.contains(name)) {
                throw new IllegalArgumentException("line " + lineNo + ": sample of " + name + " outside its family " + current);
            }
            Map<String, String> labels = new LinkedHashMap<>();
            if (m.group(3) != null && !m.group(3).isEmpty()) {
                Matcher l = LABEL.matcher(m.group(3));
                int end = 0;
                while (l.find() && l.start() == end) {
                    labels.put(l.group(1), l.group(2).replace("\\\"", "\"").replace("\\n", "\n").replace("\\\\", "\\"));
                    end = l.end();
                }
                if (end != m.group(3).length()) {
                    throw new IllegalArgumentException("line " + lineNo + ": bad labels: " + m.group(3));
                }
            }
            String v = m.group(4);
            double value = switch (v) {
                case "NaN" -> Double.NaN;
                case "+Inf" -> Double.POSITIVE_INFINITY;
                case "-Inf" -> Double.NEGATIVE_INFINITY;
                default -> Double.parseDouble(v);
            };
            samples.add(new Sample(name, labels, value));
        }
        return samples;
    }

    static double value(List<Sample> samples, String name, Map<String, String> labels) {
        return samples.stream().filter(s -> s.name().equals(name) && s.labels().entrySet().containsAll(labels.entrySet()))
                .mapToDouble(Sample::value).findFirst()
                .orElseThrow(() -> new AssertionError("no sample " + name + labels));
    }
}
