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
 * returns the JSON objects it printed, one per line. Its whole output goes to {@code logs/<name>.log}. A run that
 * fails or times out adds a line to the report's list of failures, not an exception (the other benchmarks still
 * run), and the results it printed before it failed still count. Used by one thread.
 */
final class BenchProcess {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path logs;
    private final long timeoutSeconds;
    final List<String> failures = new ArrayList<>();

    BenchProcess(Path logs, long timeoutSeconds) throws IOException {
        this.logs = Files.createDirectories(logs);
        this.timeoutSeconds = timeoutSeconds;
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

    /** Runs {@code command}; the JSON objects of its output, or none if it failed. */
    List<Map<String, Object>> run(String name, List<String> command) throws InterruptedException {
        Path log = logs.resolve(name + ".log");
        System.err.println("bench report: " + name);
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
                failures.add(name + ": timed out after " + timeoutSeconds + " s (log: " + log + ")");
            } else if (p.exitValue() != 0) {
                failures.add(name + ": exit code " + p.exitValue() + " (log: " + log + ")");
            }
            // What a failed benchmark printed before it failed is still measured: it goes in, the failure is listed.
            return parse(Files.readAllLines(log, StandardCharsets.UTF_8));
        } catch (IOException e) {
            failures.add(name + ": " + e.getMessage());
            return List.of();
        }
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
