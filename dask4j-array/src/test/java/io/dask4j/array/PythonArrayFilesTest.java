package io.dask4j.array;

import static org.assertj.core.api.Assertions.assertThat;

import io.dask4j.array.io.ZarrCompressor;
import io.dask4j.runtime.client.Client;
import io.dask4j.runtime.cluster.LocalCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Round trips with Python's own libraries (NumPy, Zarr, h5py, run as {@code /usr/bin/python3}): files Python
 * wrote read back exactly through dask4j's workers, and files dask4j's workers wrote read back exactly in
 * Python. Skipped when those packages are missing, unless {@code DASK4J_REQUIRE_PYTHON_IO=1} (CI), which makes
 * their absence a failure.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PythonArrayFilesTest {
    private static final String PYTHON = "/usr/bin/python3";
    private LocalCluster cluster;
    private Client client;
    private Path script;

    @BeforeAll
    void start(@TempDir Path dir) throws Exception {
        boolean present = Files.isExecutable(Path.of(PYTHON))
                && ExternalRun.succeeds(List.of(PYTHON, "-c", "import numpy, zarr, h5py, numcodecs"));
        if (!present && "1".equals(System.getenv("DASK4J_REQUIRE_PYTHON_IO"))) {
            throw new AssertionError(PYTHON + " with numpy, zarr, h5py and numcodecs is required (DASK4J_REQUIRE_PYTHON_IO=1)");
        }
        Assumptions.assumeTrue(present, PYTHON + " with numpy, zarr and h5py not installed");
        script = dir.resolve("array_files.py");
        try (InputStream in = PythonArrayFilesTest.class.getResourceAsStream("/python/array_files.py")) {
            Files.copy(in, script);
        }
        cluster = LocalCluster.builder().workers(3).threadsPerWorker(1).start();
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
    void everyFilePythonWroteReadsBackExactly(@TempDir Path dir) throws Exception {
        ExternalRun written = ExternalRun.of(List.of(PYTHON, script.toString(), "write", dir.toString()));
        assertThat(written.exit()).as(written.output()).isZero();
        List<String> cases = written.output().lines().filter(l -> !l.isBlank()).toList();
        assertThat(cases).hasSizeGreaterThanOrEqualTo(23);
        for (String c : cases) {
            DArray a;
            Path expected;
            if (c.startsWith("data.h5:")) {
                String dataset = c.substring("data.h5:".length());
                a = DArrays.fromHdf5(dir.resolve("data.h5"), "/" + dataset);
                expected = dir.resolve("data.h5." + dataset.replace('/', '_') + ".expected.f8");
            } else {
                a = c.endsWith(".npy") ? DArrays.fromNpy(dir.resolve(c), ChunkSpec.of(9, 14)) : DArrays.fromZarr(dir.resolve(c));
                expected = dir.resolve(c + ".expected.f8");
            }
            assertThat(a.computeVector(client)).as(c).isEqualTo(ExternalRun.doubles(expected));
        }
        // Zarr blocks follow the file's chunks; HDF5's small chunks are grown to whole multiples of themselves.
        assertThat(DArrays.fromZarr(dir.resolve("default.zarr")).chunks().rowSize(0)).isEqualTo(10);
        assertThat(DArrays.fromZarr(dir.resolve("default.zarr")).chunks().colSize(0)).isEqualTo(16);
        assertThat(DArrays.fromHdf5(dir.resolve("data.h5"), "/group/chunked_gzip_f4").chunks().blocks()).isEqualTo(1);
        assertThat(DArrays.fromHdf5(dir.resolve("data.h5"), "/group/chunked_gzip_f4", ChunkSpec.of(7)).computeVector(client))
                .isEqualTo(ExternalRun.doubles(dir.resolve("data.h5.group_chunked_gzip_f4.expected.f8")));
        // Blocks that cut through written and unwritten chunks alike.
        assertThat(DArrays.fromHdf5(dir.resolve("data.h5"), "/holes_gzip_filled", ChunkSpec.of(5, 7)).computeVector(client))
                .isEqualTo(ExternalRun.doubles(dir.resolve("data.h5.holes_gzip_filled.expected.f8")));
        assertThat(DArrays.fromHdf5(dir.resolve("data.h5"), "/holes_f8", ChunkSpec.of(9, 11)).computeVector(client))
                .isEqualTo(ExternalRun.doubles(dir.resolve("data.h5.holes_f8.expected.f8")));
    }

    @Test
    void everyFileDask4jWroteReadsBackExactlyInPython(@TempDir Path dir) throws Exception {
        DArray a = DArrays.random(41, 29, ChunkSpec.of(10, 8), 3);
        double[] values = a.computeVector(client);
        List<String[]> files = new ArrayList<>();
        for (ZarrCompressor c : List.of(ZarrCompressor.NONE, ZarrCompressor.zlib(), ZarrCompressor.gzip(), ZarrCompressor.zstd(),
                ZarrCompressor.blosc())) {
            String name = "out-" + (c.id() == null ? "none" : c.id()) + ".zarr";
            a.toZarr(client, dir.resolve(name), WriteOptions.DEFAULT.compressedWith(c));
            files.add(new String[]{"zarr", name});
        }
        a.toNpy(client, dir.resolve("out.npy"));
        files.add(new String[]{"npy", "out.npy"});
        DArrays.arange(777, ChunkSpec.of(100)).toZarr(client, dir.resolve("vector.zarr"));
        for (String[] f : files) {
            Path out = dir.resolve(f[1] + ".back.f8");
            ExternalRun read = ExternalRun.of(List.of(PYTHON, script.toString(), "read", f[0], dir.resolve(f[1]).toString(), out.toString()));
            assertThat(read.exit()).as(f[1] + ": " + read.output()).isZero();
            assertThat(read.output()).as(f[1]).contains("(41, 29) float64");
            assertThat(ExternalRun.doubles(out)).as(f[1]).isEqualTo(values);
        }
        Path out = dir.resolve("vector.back.f8");
        ExternalRun read = ExternalRun.of(List.of(PYTHON, script.toString(), "read", "zarr", dir.resolve("vector.zarr").toString(), out.toString()));
        assertThat(read.output()).contains("(777,) float64");
        assertThat(ExternalRun.doubles(out)).isEqualTo(java.util.stream.IntStream.range(0, 777).asDoubleStream().toArray());
    }
}
