package io.dask4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * What {@code ./dask4j classpath} prints, the class path users put on their own mpirun jobs: everything a
 * program needs to run a cluster and submit work, and no benchmark code or benchmark library. It is the CLI's
 * runtime class path, which Maven writes to {@code target/user-classpath.txt} before the tests run (and to
 * {@code target/classpath.txt}, which the script reads, at package time).
 */
class UserClassPathTest {

    /**
     * Package prefixes (as paths in a jar) of code only the benchmarks use: theirs, JMH, HdrHistogram (their latency
     * histograms; Micrometer would use it only for client-side percentiles, which no dask4j meter publishes), and
     * JFreeChart and JFreeSVG (the report's charts).
     */
    private static final List<String> BENCHMARK_PACKAGES = List.of("io/dask4j/bench/", "org/openjdk/jmh/", "org/HdrHistogram/",
            "org/jfree/chart/", "org/jfree/svg/");

    private static List<Path> userClassPath() throws IOException {
        String text = Files.readString(Path.of("target", "user-classpath.txt")).strip();
        List<Path> entries = new ArrayList<>();
        for (String entry : text.split(File.pathSeparator)) {
            entries.add(Path.of(entry));
        }
        return entries;
    }

    /** The class files (as paths such as {@code io/dask4j/Foo.class}) that an entry holds. */
    private static List<String> classesOf(Path entry) throws IOException {
        if (Files.isDirectory(entry)) {
            try (Stream<Path> files = Files.walk(entry)) {
                return files.filter(f -> f.toString().endsWith(".class"))
                        .map(f -> entry.relativize(f).toString().replace(File.separatorChar, '/')).toList();
            }
        }
        try (JarFile jar = new JarFile(entry.toFile())) {
            return jar.stream().map(e -> e.getName()).filter(n -> n.endsWith(".class")).toList();
        }
    }

    @Test
    void holdsNoBenchmarkCodeNorBenchmarkLibrary() throws IOException {
        List<Path> entries = userClassPath();
        assertThat(entries).isNotEmpty();
        for (Path entry : entries) {
            assertThat(entry.toString()).as("class path entry").doesNotContain("dask4j-bench", "jmh", "HdrHistogram", "jfreechart", "org.jfree.svg");
            for (String cls : classesOf(entry)) {
                assertThat(BENCHMARK_PACKAGES).as("%s in %s", cls, entry).noneMatch(cls::startsWith);
            }
        }
    }

    @Test
    void holdsWhatAUsersProgramNeeds() throws IOException {
        List<String> classes = new ArrayList<>();
        for (Path entry : userClassPath()) {
            classes.addAll(classesOf(entry));
        }
        assertThat(classes).contains("io/dask4j/launcher/MpiCluster.class", "io/dask4j/runtime/cluster/LocalCluster.class",
                "io/dask4j/array/DArray.class", "io/dask4j/mpi/comm/MpiBackend.class");
    }
}
