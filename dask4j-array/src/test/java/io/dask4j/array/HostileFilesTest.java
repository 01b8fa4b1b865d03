package io.dask4j.array;

import io.dask4j.array.io.ArrayFileException;
import io.dask4j.runtime.client.Client;
import io.dask4j.runtime.client.RemoteTaskException;
import io.dask4j.runtime.cluster.LocalCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Array files written to hurt the client or the workers: shapes whose byte count overflows, chunkings that
 * would make graphs of trillions of tasks, files damaged between the client's open and the workers' reads. Each
 * fails with an {@link ArrayFileException} naming the file (on the client, or as the read task's error), and
 * the cluster keeps serving: a valid read on it afterwards succeeds.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HostileFilesTest {
    private LocalCluster cluster;
    private Client client;

    @BeforeAll
    void start() {
        cluster = LocalCluster.builder().workers(1).threadsPerWorker(1).start();
        client = cluster.client();
    }

    @AfterAll
    void stop() {
        client.close();
        cluster.close();
    }

    @Test
    void aShapeWhoseByteCountOverflowsIsRefusedNotWrappedAround(@TempDir Path dir) throws IOException {
        // (2^31 - 1)^2 float64 elements are 2^65 bytes, which a long product wraps to a negative count that any
        // file, even an empty one, seemed to hold.
        Path npy = dir.resolve("huge.npy");
        Files.write(npy, ArrayFileErrorsTest.header("{'descr': '<f8', 'fortran_order': False, 'shape': (2147483647, 2147483647), }"));
        ArrayFileErrorsTest.assertFileError(() -> io.dask4j.array.io.NpyFormat.open(npy), npy, "shape (2147483647, 2147483647) of <f8 needs more bytes than a file can hold");
        Path raw = Files.write(dir.resolve("huge.f8"), new byte[0]);
        ArrayFileErrorsTest.assertFileError(() -> DArrays.fromRaw(raw, new int[]{Integer.MAX_VALUE, Integer.MAX_VALUE}, "float64", io.dask4j.array.io.StorageOrder.C),
                raw, "needs more bytes than a file can hold");
    }

    @Test
    void anNpyHeaderThatRepeatsAKeyIsRefusedRatherThanReadOtherwiseThanNumPyReadsIt(@TempDir Path dir) throws IOException {
        // NumPy reads this file as int8 (a repeated key's last value wins); reading it as float64 would be wrong data.
        Path npy = dir.resolve("twice.npy");
        Files.write(npy, ArrayFileErrorsTest.header("{'descr': '<f8', 'fortran_order': False, 'shape': (8,), 'descr': '|i1', }"));
        Files.write(npy, new byte[64], java.nio.file.StandardOpenOption.APPEND);
        ArrayFileErrorsTest.assertFileError(() -> DArrays.fromNpy(npy), npy, "the .npy header gives 'descr' 2 times");
    }

    @Test
    void aZarrChunkingOfTrillionsOfBlocksIsRefusedBeforeTheGraphIsBuilt(@TempDir Path dir) throws IOException {
        // Unwritten chunks take no space: this array is a 200-byte file. Building its 4.6e12 read tasks would run
        // out of memory or for hours, so the bound is generous and only catches that.
        Path z = Files.createDirectories(dir.resolve("wide.zarr"));
        Files.writeString(z.resolve(".zarray"), "{\"zarr_format\": 2, \"shape\": [2147483647, 2147483647], \"chunks\": [1000, 1000],"
                + " \"dtype\": \"<f8\", \"compressor\": null, \"fill_value\": 0, \"order\": \"C\", \"filters\": null}");
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> ArrayFileErrorsTest.assertFileError(() -> DArrays.fromZarr(z), z,
                "its chunks of 1000 x 1000 cut its shape (2147483647, 2147483647) into 4611687530256 blocks"));
    }

    @Test
    void anHdf5FileDamagedAfterItWasOpenedFailsItsReadTaskAndTheWorkerKeepsServing(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("data.h5");
        byte[] good;
        try (InputStream in = HostileFilesTest.class.getResourceAsStream("/hdf5/chunked-gzip.h5")) {
            good = in.readAllBytes();
        }
        Files.write(file, good);
        DArray a = DArrays.fromHdf5(file, "/x");
        double expected = IntStream.range(0, 600).mapToDouble(i -> i + 0.5).sum();
        assertThat(a.sum().compute(client)).isEqualTo(expected);
        // Replaced between the client's open and the workers' read: garbage of the same length, then a truncation.
        byte[] garbage = good.clone();
        new java.util.Random(7).nextBytes(garbage);
        for (byte[] damaged : new byte[][]{garbage, java.util.Arrays.copyOf(good, good.length / 2)}) {
            Files.write(file, damaged);
            assertThatThrownBy(() -> a.sum().compute(client)).isInstanceOf(RemoteTaskException.class)
                    .hasMessageContaining(file.toString()).hasMessageContaining("ArrayFileException");
        }
        Files.write(file, good);
        assertThat(a.sum().compute(client)).isEqualTo(expected);
    }

    @Test
    void anNpyFileTruncatedAfterItWasOpenedFailsItsReadTaskNamingTheFile(@TempDir Path dir) throws IOException {
        Path npy = dir.resolve("a.npy");
        DArrays.arange(40, 50, ChunkSpec.of(20)).toNpy(client, npy);
        DArray a = DArrays.fromNpy(npy, ChunkSpec.of(20));
        try (RandomAccessFile f = new RandomAccessFile(npy.toFile(), "rw")) {
            f.setLength(f.length() - 8);
        }
        assertThatThrownBy(() -> a.sum().compute(client)).isInstanceOf(RemoteTaskException.class)
                .hasMessageContaining(npy.toString()).hasMessageContaining("truncated");
        assertThat(a.slice(0, 20, 0, 20).sum().compute(client)).isEqualTo(
                IntStream.range(0, 20).mapToDouble(r -> IntStream.range(0, 20).map(c -> r * 50 + c).sum()).sum());
    }
}
