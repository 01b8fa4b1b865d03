package io.dask4j.array;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dask4j.array.io.ArrayFileException;
import io.dask4j.array.io.ElementType;
import io.dask4j.array.io.NpyFormat;
import io.dask4j.array.io.StorageOrder;
import io.dask4j.array.io.ArrayShape;
import io.dask4j.runtime.client.Client;
import io.dask4j.runtime.client.RemoteTaskException;
import io.dask4j.runtime.cluster.LocalCluster;
import io.jhdf.HdfFile;
import io.jhdf.WritableHdfFile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Bad array files: what the metadata shows is refused when the array is created, before any task exists (no
 * cluster is involved in those cases); what only the data shows (a truncated or corrupt chunk) fails the task
 * that reads it, with the file and the problem in the error. Each error names the file.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ArrayFileErrorsTest {
    private LocalCluster cluster;
    private Client client;

    @BeforeAll
    void start() {
        cluster = LocalCluster.builder().workers(2).threadsPerWorker(1).start();
        client = cluster.client();
    }

    @AfterAll
    void stop() {
        client.close();
        cluster.close();
    }

    @Test
    void aMissingFileOrDirectoryIsRefusedWhenTheArrayIsCreated(@TempDir Path dir) {
        assertFileError(() -> DArrays.fromNpy(dir.resolve("nope.npy")), dir.resolve("nope.npy"), "no such file");
        assertFileError(() -> DArrays.fromZarr(dir.resolve("nope.zarr")), dir.resolve("nope.zarr"), "no such directory");
        assertFileError(() -> DArrays.fromHdf5(dir.resolve("nope.h5"), "/x"), dir.resolve("nope.h5"), "no such file");
        assertFileError(() -> DArrays.fromRaw(dir.resolve("nope.f8"), new int[]{2, 2}, "float64", StorageOrder.C),
                dir.resolve("nope.f8"), "no such file");
    }

    @Test
    void aTruncatedNpyOrRawFileIsRefusedBeforeAnyTaskRuns(@TempDir Path dir) throws IOException {
        Path npy = dir.resolve("short.npy");
        byte[] header = NpyFormat.header(new ArrayShape(2, 10, 10), ElementType.FLOAT64_LE);
        Files.write(npy, concat(header, new byte[799]));
        assertFileError(() -> DArrays.fromNpy(npy), npy, "truncated: shape (10, 10) of <f8 needs " + (header.length + 800));
        Path raw = dir.resolve("short.i4");
        Files.write(raw, new byte[4 * 11]);
        assertFileError(() -> DArrays.fromRaw(raw, new int[]{3, 4}, "int32", StorageOrder.F), raw, "needs 48 bytes, the file has 44");
        Files.write(npy, new byte[]{(byte) 0x93, 'N', 'U', 'M'}, StandardOpenOption.TRUNCATE_EXISTING);
        assertFileError(() -> DArrays.fromNpy(npy), npy, "not a .npy file");
    }

    @Test
    void shapesAndTypesADArrayCannotHoldAreRefusedByName(@TempDir Path dir) throws IOException {
        Path cube = dir.resolve("cube.npy");
        Files.write(cube, concat(header("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3, 4), }"), new byte[192]));
        assertFileError(() -> DArrays.fromNpy(cube), cube, "the array has 3 dimensions [2, 3, 4]; a DArray holds 1-D and 2-D arrays");
        Path complex = dir.resolve("complex.npy");
        Files.write(complex, concat(header("{'descr': '<c16', 'fortran_order': False, 'shape': (2,), }"), new byte[32]));
        assertFileError(() -> DArrays.fromNpy(complex), complex, "element type '<c16' is not supported");
        assertThatThrownBy(() -> DArrays.fromRaw(complex, new int[]{4}, "complex128", StorageOrder.C))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown element type 'complex128'");
    }

    @Test
    void zarrMetadataProblemsAreRefusedWhenTheArrayIsCreated(@TempDir Path dir) throws IOException {
        Path v3 = Files.createDirectories(dir.resolve("v3.zarr"));
        Files.writeString(v3.resolve("zarr.json"), "{\"zarr_format\": 3, \"node_type\": \"group\"}");
        assertFileError(() -> DArrays.fromZarr(v3), v3, "is a Zarr group, not an array");
        Path lz = zarr(dir, "lzma.zarr", "{\"id\": \"lzma\"}", "null");
        assertFileError(() -> DArrays.fromZarr(lz), lz, "compressor 'lzma' is not supported");
        Path filtered = zarr(dir, "filtered.zarr", "null", "[{\"id\": \"delta\", \"dtype\": \"<f8\"}]");
        assertFileError(() -> DArrays.fromZarr(filtered), filtered, "filters");
        Path broken = Files.createDirectories(dir.resolve("broken.zarr"));
        Files.writeString(broken.resolve(".zarray"), "{\"zarr_format\": 2, \"shape\": [");
        assertFileError(() -> DArrays.fromZarr(broken), broken, ".zarray is not valid JSON");
    }

    @Test
    void aTruncatedOrCorruptZarrChunkFailsItsTaskNamingTheChunkFile(@TempDir Path dir) throws IOException {
        DArray a = DArrays.arange(20, 20, ChunkSpec.of(10));
        a.toZarr(client, dir.resolve("plain.zarr"));
        a.toZarr(client, dir.resolve("packed.zarr"), WriteOptions.DEFAULT.compressedWith(io.dask4j.array.io.ZarrCompressor.zstd()));
        try (FileChannel ch = FileChannel.open(dir.resolve("plain.zarr/1.0"), StandardOpenOption.WRITE)) {
            ch.truncate(100);
        }
        Files.write(dir.resolve("packed.zarr/0.1"), new byte[]{1, 2, 3, 4, 5, 6, 7, 8});
        assertThatThrownBy(() -> DArrays.fromZarr(dir.resolve("plain.zarr")).sum().compute(client))
                .isInstanceOf(RemoteTaskException.class)
                .hasMessageContaining(dir.resolve("plain.zarr/1.0").toString()).hasMessageContaining("truncated");
        assertThatThrownBy(() -> DArrays.fromZarr(dir.resolve("packed.zarr")).sum().compute(client))
                .isInstanceOf(RemoteTaskException.class)
                .hasMessageContaining(dir.resolve("packed.zarr/0.1").toString()).hasMessageContaining("unreadable");
        // The cluster keeps serving: the intact array still computes.
        assertThat(DArrays.fromZarr(dir.resolve("plain.zarr"), ChunkSpec.of(10, 20)).slice(0, 10, 0, 20).sum().compute(client))
                .isEqualTo(java.util.stream.IntStream.range(0, 200).sum());
    }

    @Test
    void hdf5DatasetsAreFoundByPathAndAnythingElseIsRefusedByName(@TempDir Path dir) {
        Path file = dir.resolve("small.h5");
        double[][] values = {{1, 2, 3}, {4, 5, 6}};
        try (WritableHdfFile w = HdfFile.write(file)) {
            w.putDataset("values", values);
            w.putGroup("group").putDataset("ints", new int[]{7, -8, 9});
        }
        assertThat(DArrays.fromHdf5(file, "/values").computeVector(client)).containsExactly(1, 2, 3, 4, 5, 6);
        assertThat(DArrays.fromHdf5(file, "/group/ints").computeVector(client)).containsExactly(7, -8, 9);
        assertFileError(() -> DArrays.fromHdf5(file, "/missing"), file, "has no dataset '/missing'");
        assertFileError(() -> DArrays.fromHdf5(file, "/group"), file, "'/group' is a group, not a dataset");
    }

    @Test
    void aWriteThatFailsLeavesNoValidLookingArray(@TempDir Path dir) {
        DArray failing = DArrays.ones(20, 20, ChunkSpec.of(10)).mapBlocks((block, rows, cols) -> {
            if (block.length > 0 && rows == 10) {
                throw new IllegalStateException("boom");
            }
            return block;
        });
        assertThatThrownBy(() -> failing.toZarr(client, dir.resolve("f.zarr"))).isInstanceOf(RemoteTaskException.class);
        assertThat(dir.resolve("f.zarr/.zarray")).doesNotExist();
        assertThatThrownBy(() -> failing.toNpy(client, dir.resolve("f.npy"))).isInstanceOf(RemoteTaskException.class);
        assertThat(dir.resolve("f.npy")).doesNotExist();
        try (var left = Files.list(dir)) {
            assertThat(left.map(p -> p.getFileName().toString())).containsExactly("f.zarr");
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static Path zarr(Path dir, String name, String compressor, String filters) throws IOException {
        Path z = Files.createDirectories(dir.resolve(name));
        Files.writeString(z.resolve(".zarray"), "{\"zarr_format\": 2, \"shape\": [4, 4], \"chunks\": [2, 2], \"dtype\": \"<f8\","
                + " \"compressor\": " + compressor + ", \"fill_value\": 0, \"order\": \"C\", \"filters\": " + filters + "}");
        return z;
    }

    static byte[] header(String dict) {
        byte[] text = (dict + "\n").getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        ByteBuffer b = ByteBuffer.allocate(10 + text.length).order(ByteOrder.LITTLE_ENDIAN);
        b.put(new byte[]{(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0}).putShort((short) text.length).put(text);
        return b.array();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    static void assertFileError(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, Path file, String problem) {
        assertThatThrownBy(call).isInstanceOf(ArrayFileException.class)
                .hasMessageStartingWith(file + ": ").hasMessageContaining(problem)
                .extracting(e -> ((ArrayFileException) e).file()).isEqualTo(file.toString());
    }
}
