package io.dask4j.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The runtime's packages import only those below them: {@code task} (what both sides of a task share) and
 * {@code protocol} at the bottom; {@code worker}, {@code scheduler} and {@code client} above them and not each
 * other; {@code cluster} and {@code dashboard}, which assemble them, on top. Read from the main sources' imports.
 */
class PackageLayeringTest {

    private static final Path SOURCES = Path.of("src/main/java/io/dask4j/runtime");

    /** For each package, the runtime packages its sources must not import. */
    private static final Map<String, List<String>> FORBIDDEN = Map.of(
            "task", List.of("protocol", "worker", "scheduler", "client", "cluster", "dashboard"),
            "protocol", List.of("worker", "scheduler", "client", "cluster", "dashboard"),
            "worker", List.of("scheduler", "client", "cluster", "dashboard"),
            "scheduler", List.of("worker", "client", "cluster"),
            "client", List.of("worker", "scheduler", "cluster", "dashboard"));

    @Test
    void eachPackageImportsOnlyThePackagesBelowIt() throws IOException {
        for (var rule : FORBIDDEN.entrySet()) {
            try (Stream<Path> files = Files.walk(SOURCES.resolve(rule.getKey()))) {
                for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                    List<String> imports = Files.readAllLines(file).stream().filter(l -> l.startsWith("import ")).toList();
                    for (String below : rule.getValue()) {
                        assertThat(imports).as("%s imports from %s", file, below)
                                .noneMatch(l -> l.contains("io.dask4j.runtime." + below + "."));
                    }
                }
            }
        }
    }
}
