package io.dask4j.bench.report;

import io.dask4j.comm.config.ConfigSource;
import io.dask4j.comm.config.Setting;
import io.dask4j.comm.config.Settings;
import io.dask4j.comm.JvmFlags;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs one benchmark in a process of its own (a bench command's main class in a JVM like this one, or Python) and
 * returns the JSON objects it printed, one per line. Its whole output goes to {@code logs/<name>.log}. Each run has a
 * bound; one that fails or runs past it is killed and recorded as such (the other benchmarks still run), and the
 * results it printed before it failed still count. Every run, ok or not, is kept in {@link #runs} for the report.
 * Used by one thread.
 */
final class BenchProcess {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path logs;
    final List<BenchRun> runs = new ArrayList<>();

    BenchProcess(Path logs) throws IOException {
        this.logs = Files.createDirectories(logs);
    }

    /** One line per run that did not end well, naming its log. */
    List<String> failures() {
        return runs.stream().filter(r -> !r.ok())
                .map(r -> r.name() + ": " + r.outcome() + " (log: " + logs.resolve(r.name() + ".log") + ")").toList();
    }

    /** The JVM command line for {@code mainClass}: this JVM's java, class path and the options dask4j needs. */
    static List<String> java(Class<?> mainClass, String... args) {
        List<String> properties = new ArrayList<>();
        ConfigSource settings = ConfigSource.system();
        for (Setting p : List.of(Settings.HOME, Settings.LAUNCHER)) {
            if (p.isSet(settings)) {
                properties.add(p.usage() + "=" + p.raw(settings));
            }
        }
        return JvmFlags.javaCommand(Path.of(System.getProperty("java.home"), "bin", "java").toString(), properties,
                System.getProperty("java.class.path"), mainClass.getName(), List.of(args));
    }

    /** Runs {@code command} for at most {@code boundSeconds}; the JSON objects it printed, even if it failed. */
    List<Map<String, Object>> run(String name, long boundSeconds, List<String> command) throws InterruptedException {
        Path log = logs.resolve(name + ".log");
        System.err.println("bench report: " + name + " (at most " + boundSeconds + " s)");
        long start = System.nanoTime();
        String outcome;
        List<Map<String, Object>> results = List.of();
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!p.waitFor(boundSeconds, TimeUnit.SECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
                outcome = "timed out after " + boundSeconds + " s";
            } else {
                outcome = p.exitValue() == 0 ? BenchRun.OK : "exit code " + p.exitValue();
            }
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            if (!outcome.equals(BenchRun.OK)) {
                outcome += lastWords(lines);
            }
            // What a failed benchmark printed before it failed is still measured: it goes in, the failure is listed.
            results = parse(lines);
        } catch (IOException e) {
            outcome = "could not start: " + e.getMessage();
        }
        runs.add(new BenchRun(name, (System.nanoTime() - start) / 1e9, boundSeconds, outcome, results.size()));
        return results;
    }

    /** The last line of a failed run's output that is not a result, as ": line" (at most 200 characters), or "". */
    static String lastWords(List<String> lines) {
        for (int i = lines.size() - 1; i >= 0; i--) {
            String line = lines.get(i).strip();
            if (!line.isEmpty() && !line.startsWith("{")) {
                return ": " + (line.length() > 200 ? line.substring(0, 200) + "..." : line);
            }
        }
        return "";
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> parse(List<String> lines) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (String line : lines) {
            if (line.startsWith("{")) {
                try {
                    out.add(JSON.readValue(line, Map.class));
                } catch (JsonProcessingException e) {
                    // a log line that starts with a brace: not a result
                }
            }
        }
        return out;
    }
}
