package io.dask4j.array;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dask4j.array.io.ZarrCompressor;
import io.dask4j.runtime.client.Client;
import io.dask4j.runtime.cluster.LocalCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Zarr v3 arrays written by an implementation independent of dask4j's reader, zarrita.js (run by node; version
 * pinned in {@code src/test/zarrita/package-lock.json}, installed by {@code src/test/zarrita/install} into
 * {@code target/zarrita}), read back through dask4j's workers and compared exactly, element by element, with
 * what zarrita was given. Covers what zarrita encodes: the {@code bytes} codec in both endiannesses,
 * {@code transpose}, {@code gzip} (numcodecs.js's), {@code zstd}, {@code blosc}, float and integer types, edge
 * chunks, unwritten chunks, 1-D arrays and {@code .}-separated chunk keys. And the other way: Zarr v2 arrays
 * dask4j's workers wrote, with each compressor, read back exactly by zarrita. Skipped when node or npm is missing,
 * unless {@code DASK4J_REQUIRE_ZARRITA=1} (CI), which makes their absence a failure; with node present, a
 * failed install fails the test.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ZarritaV3Test {
    private static final Path PROJECT = Path.of("src", "test", "zarrita");
    private static final Path INSTALLED = Path.of("target", "zarrita");
    private LocalCluster cluster;
    private Client client;

    @BeforeAll
    void start() throws Exception {
        boolean present = ExternalRun.succeeds(List.of("node", "--version")) && ExternalRun.succeeds(List.of("npm", "--version"));
        if (!present && "1".equals(System.getenv("DASK4J_REQUIRE_ZARRITA"))) {
            throw new AssertionError("node and npm are required (DASK4J_REQUIRE_ZARRITA=1)");
        }
        Assumptions.assumeTrue(present, "node and npm not installed");
        ExternalRun install = ExternalRun.of(List.of("bash", PROJECT.resolve("install").toString(), INSTALLED.toString()));
        assertThat(install.exit()).as("npm ci of zarrita: " + install.output()).isZero();
        cluster = LocalCluster.builder().workers(2).threadsPerWorker(1).start();
        client = cluster.client();
    }

    @AfterAll
    void stop() {
        if (client != null) {
            client.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void everyArrayZarritaWroteReadsBackExactly(@TempDir Path dir) throws Exception {
        ExternalRun written = ExternalRun.of(List.of("node", INSTALLED.resolve("write_v3.mjs").toString(), dir.toString()));
        assertThat(written.exit()).as(written.output()).isZero();
        List<String> lines = written.output().lines().filter(l -> !l.isBlank()).toList();
        assertThat(lines).hasSizeGreaterThanOrEqualTo(12);
        List<String> codecsSeen = new ArrayList<>();
        for (String line : lines) {
            String[] f = line.split("\\|");
            assertThat(f).as(line).hasSize(4);
            Path array = dir.resolve(f[0]);
            int[] shape = ints(f[1]);
            int[] chunks = ints(f[2]);
            // The file holds what the case says (zarrita writes the codecs it was given): read zarr.json itself.
            assertThat(codecs(array)).as(f[0]).isEqualTo(f[3]);
            codecsSeen.add(f[3]);

            DArray a = DArrays.fromZarr(array);
            assertThat(a.shape()).as(f[0]).isEqualTo(shape.length == 1 ? new int[]{shape[0]} : shape);
            assertThat(a.chunks().colSize(0)).as(f[0]).isEqualTo(chunks[chunks.length - 1]);
            if (shape.length == 2) {
                assertThat(a.chunks().rowSize(0)).as(f[0]).isEqualTo(chunks[0]);
            }
            double[] expected = ExternalRun.doubles(dir.resolve(f[0].replace(".zarr", ".expected.f8")));
            assertThat(expected).as(f[0]).hasSize(Arrays.stream(shape).reduce(1, (x, y) -> x * y));
            assertThat(a.computeVector(client)).as(f[0]).isEqualTo(expected);
        }
        assertThat(String.join(",", codecsSeen)).contains("bytes:little", "bytes:big", "transpose", "gzip", "zstd", "blosc");

        // An unwritten chunk, as zarrita left it: no file, and its elements read as fill_value (NaN here).
        Path holes = dir.resolve("f8_le_edges_hole.zarr");
        assertThat(holes.resolve("c/1/1")).doesNotExist();
        assertThat(holes.resolve("c/1/2")).exists();
        double[] values = DArrays.fromZarr(holes).computeVector(client);
        assertThat(values[5 * 17 + 4]).isNaN();
        assertThat(values[5 * 17 + 8]).isEqualTo(5 * 17 + 8 + 0.5);
        // The dot-separated chunk keys really are c.i.j.
        assertThat(dir.resolve("f8_zstd_dot_keys.zarr/c.3.3")).exists();
    }

    @Test
    void everyZarrArrayDask4jWroteReadsBackExactlyInZarrita(@TempDir Path dir) throws Exception {
        DArray a = DArrays.random(41, 29, ChunkSpec.of(10, 8), 5);
        double[] values = a.computeVector(client);
        for (ZarrCompressor c : List.of(ZarrCompressor.NONE, ZarrCompressor.zlib(), ZarrCompressor.gzip(), ZarrCompressor.zstd(),
                ZarrCompressor.blosc())) {
            Path array = dir.resolve("out-" + (c.id() == null ? "none" : c.id()) + ".zarr");
            a.toZarr(client, array, WriteOptions.DEFAULT.compressedWith(c));
            assertThat(readInZarrita(array, "41,29")).as(array.toString()).isEqualTo(values);
        }
        Path vector = dir.resolve("vector.zarr");
        DArrays.arange(777, ChunkSpec.of(100)).toZarr(client, vector);
        assertThat(readInZarrita(vector, "777")).isEqualTo(IntStream.range(0, 777).asDoubleStream().toArray());
    }

    /** The array as zarrita reads it, after checking it reports {@code shape} and float64. */
    private static double[] readInZarrita(Path array, String shape) throws Exception {
        Path out = array.resolveSibling(array.getFileName() + ".back.f8");
        ExternalRun read = ExternalRun.of(List.of("node", INSTALLED.resolve("read.mjs").toString(), array.toString(), out.toString()));
        assertThat(read.exit()).as(array + ": " + read.output()).isZero();
        assertThat(read.output().strip()).as(array.toString()).isEqualTo(shape + " float64");
        return ExternalRun.doubles(out);
    }

    private static int[] ints(String csv) {
        return Arrays.stream(csv.split(",")).mapToInt(Integer::parseInt).toArray();
    }

    /** The array's codecs as the script describes them: names, with the bytes codec's endianness. */
    private static String codecs(Path array) throws IOException {
        JsonNode meta = new ObjectMapper().readTree(Files.readString(array.resolve("zarr.json")));
        assertThat(meta.path("zarr_format").asInt()).isEqualTo(3);
        List<String> names = new ArrayList<>();
        for (JsonNode c : meta.path("codecs")) {
            String name = c.path("name").asText();
            names.add(name.equals("bytes") ? "bytes:" + c.path("configuration").path("endian").asText() : name);
        }
        return names.stream().collect(Collectors.joining(","));
    }
}
