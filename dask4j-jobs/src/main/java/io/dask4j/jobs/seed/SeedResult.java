package io.dask4j.jobs.seed;

import io.dask4j.jobs.AotCaches;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The outcome of one run set of the seed workload: per-run wall times and the computed sum.
 *
 * @param backend inproc, tcp or mpi
 * @param chunk the chunk side actually used (auto resolved)
 * @param layout how x's blocks were laid out over the workers: {@code mirrors} or {@code row-major}
 * @param seconds the timed runs, in order
 * @param warmupSeconds the untimed warm-up runs, in order
 * @param persistSeconds time to persist x and wait for it, the first time (the workers' first read of a file's x)
 * @param rereadSeconds times to persist x again on the same workers after releasing it, in order ({@code --rereads})
 * @param result the sum of the last run
 * @param aot the JVMs' AOT caches ({@link io.dask4j.jobs.AotCaches}): {@code off}, {@code training} (some
 *     JVM of the job trained its cache, so its times include that) or {@code cached} (every JVM started with one)
 * @param processes which processes the cluster ran in (set by the launching command; null until then)
 */
public record SeedResult(String backend, int n, int chunk, int workers, String layout, List<Double> seconds,
                         List<Double> warmupSeconds, double persistSeconds, List<Double> rereadSeconds, double result, String aot,
                         io.dask4j.jobs.ProcessLayout processes) {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Starts the line on which a job's driver or client rank prints its result for the launching process. */
    static final String LINE_PREFIX = "SEED-RESULT ";

    /** The command-line and JSON name of a layout: {@code mirrors} or {@code row-major}. */
    public static String layoutName(io.dask4j.array.BlockLayout layout) {
        return layout == io.dask4j.array.BlockLayout.MIRRORS_TOGETHER ? "mirrors" : "row-major";
    }

    /** This result with the AOT-cache state of the job that produced it. */
    public SeedResult withAot(String state) {
        return new SeedResult(backend, n, chunk, workers, layout, seconds, warmupSeconds, persistSeconds, rereadSeconds, result, state, processes);
    }

    /** This result with the processes its cluster ran in. */
    public SeedResult withProcesses(io.dask4j.jobs.ProcessLayout where) {
        return new SeedResult(backend, n, chunk, workers, layout, seconds, warmupSeconds, persistSeconds, rereadSeconds, result, aot, where);
    }

    public double median() {
        double[] s = sorted();
        int m = s.length / 2;
        return s.length % 2 == 1 ? s[m] : (s[m - 1] + s[m]) / 2;
    }

    public double min() {
        return sorted()[0];
    }

    public double max() {
        double[] s = sorted();
        return s[s.length - 1];
    }

    private double[] sorted() {
        double[] s = seconds.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(s);
        return s;
    }

    /**
     * One JSON object: backend, n, chunk, workers, layout, median_s, min_s, max_s, result (and a few extras, aot
     * among them, and process_layout, processes and under mpi client_rank once known).
     */
    public String toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("backend", backend);
        m.put("n", n);
        m.put("chunk", chunk);
        m.put("workers", workers);
        m.put("layout", layout);
        m.put("median_s", median());
        m.put("min_s", min());
        m.put("max_s", max());
        m.put("result", result);
        m.put("runs", seconds.size());
        m.put("runs_s", seconds);
        m.put("warmup_s", warmupSeconds);
        m.put("persist_s", persistSeconds);
        m.put("rereads_s", rereadSeconds);
        m.put("aot", aot);
        if (processes != null) {
            processes.into(m);
        }
        try {
            return JSON.writeValueAsString(m);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    public static SeedResult fromJson(String text) {
        try {
            Map<?, ?> m = JSON.readValue(text, Map.class);
            return new SeedResult((String) m.get("backend"), ((Number) m.get("n")).intValue(), ((Number) m.get("chunk")).intValue(),
                    ((Number) m.get("workers")).intValue(), (String) m.get("layout"), doubles(m.get("runs_s")), doubles(m.get("warmup_s")),
                    ((Number) m.get("persist_s")).doubleValue(), m.containsKey("rereads_s") ? doubles(m.get("rereads_s")) : List.of(),
                    ((Number) m.get("result")).doubleValue(),
                    m.get("aot") instanceof String state ? state : "off", io.dask4j.jobs.ProcessLayout.from(m));
        } catch (JsonProcessingException | ClassCastException | NullPointerException e) {
            throw new IllegalArgumentException("not a seed result: " + text, e);
        }
    }

    private static List<Double> doubles(Object o) {
        return ((List<?>) o).stream().map(v -> ((Number) v).doubleValue()).toList();
    }

    public String toText() {
        return String.format(Locale.ROOT, "dask4j %s: n=%d chunk=%d workers=%d layout=%s runs=%d median=%.3fs min=%.3fs max=%.3fs sum=%.6e"
                        + " (persist %.2fs%s, warm-up %s, AOT caches %s)", backend, n, chunk, workers, layout, seconds.size(), median(), min(), max(),
                result, persistSeconds, rereadSeconds.isEmpty() ? "" : ", again " + secondsList(rereadSeconds), secondsList(warmupSeconds), aot);
    }

    private static List<String> secondsList(List<Double> seconds) {
        return seconds.stream().map(s -> String.format(Locale.ROOT, "%.3fs", s)).toList();
    }
}
