package io.dask4j.array.io;

import com.github.luben.zstd.Zstd;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32C;
import java.util.zip.GZIPOutputStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Zarr v3 arrays written here byte by byte as the v3 specification lays them out (Debian's Python zarr writes
 * only v2): {@code zarr.json}, chunk files under {@code c/} (or v2-style names), padded edge chunks, and the
 * codecs dask4j reads. Each is read back and compared element by element with the values written.
 */
class ZarrV3ReadTest {
    private static final int ROWS = 5;
    private static final int COLS = 7;
    private static final int CR = 2;
    private static final int CC = 3;

    private static double value(int r, int c) {
        return r * 100 + c + 0.5;
    }

    /** Writes chunk (i, j) of the test array: padded to CR x CC, C or F order, then through the codec. */
    private static void chunk(Path file, int i, int j, boolean fortran, boolean big, String codec) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(CR * CC * 8).order(big ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
        for (int k = 0; k < CR * CC; k++) {
            int a = fortran ? k % CR : k / CC;
            int c = fortran ? k / CR : k % CC;
            int r = i * CR + a;
            int col = j * CC + c;
            b.putDouble(r < ROWS && col < COLS ? value(r, col) : -1);
        }
        byte[] raw = b.array();
        byte[] stored = switch (codec) {
            case "gzip" -> {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
                    gz.write(raw);
                }
                yield out.toByteArray();
            }
            case "zstd", "zstd+crc32c" -> Zstd.compress(raw, 3);
            default -> raw;
        };
        if (codec.endsWith("crc32c")) {
            CRC32C crc = new CRC32C();
            crc.update(stored);
            stored = ByteBuffer.allocate(stored.length + 4).order(ByteOrder.LITTLE_ENDIAN).put(stored).putInt((int) crc.getValue()).array();
        }
        Files.createDirectories(file.getParent());
        Files.write(file, stored);
    }

    private static double[] readAll(Path dir) {
        ZarrArray a = ZarrArray.open(dir);
        assertThat(a.shape()).isEqualTo(new ArrayShape(2, ROWS, COLS));
        assertThat(a.storageChunks()).containsExactly(CR, CC);
        return a.read(0, 0, ROWS, COLS);
    }

    @Test
    void anUncompressedArrayWithTheDefaultChunkNamesReadsBackAndMissingChunksReadAsTheFillValue(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("zarr.json"), """
                {"zarr_format": 3, "node_type": "array", "shape": [5, 7], "data_type": "float64",
                 "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2, 3]}},
                 "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
                 "fill_value": "NaN", "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
                 "attributes": {}, "dimension_names": ["y", "x"]}""");
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 3; j++) {
                if (!(i == 1 && j == 2)) {
                    chunk(dir.resolve("c/" + i + "/" + j), i, j, false, false, "none");
                }
            }
        }
        double[] got = readAll(dir);
        for (int r = 0; r < ROWS; r++) {
            for (int c = 0; c < COLS; c++) {
                boolean missing = r / CR == 1 && c / CC == 2;
                double expected = missing ? Double.NaN : value(r, c);
                assertThat(Double.compare(got[r * COLS + c], expected)).as("(%d, %d): %s, expected %s", r, c, got[r * COLS + c], expected).isZero();
            }
        }
    }

    @Test
    void transposedBigEndianCompressedChunksWithV2NamesReadBack(@TempDir Path dir) throws IOException {
        for (String codec : new String[]{"gzip", "zstd"}) {
            Path d = Files.createDirectories(dir.resolve(codec + ".zarr"));
            Files.writeString(d.resolve("zarr.json"), """
                    {"zarr_format": 3, "node_type": "array", "shape": [5, 7], "data_type": "float64",
                     "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2, 3]}},
                     "chunk_key_encoding": {"name": "v2", "configuration": {"separator": "."}},
                     "fill_value": 0.0,
                     "codecs": [{"name": "transpose", "configuration": {"order": [1, 0]}},
                                {"name": "bytes", "configuration": {"endian": "big"}},
                                {"name": "%s", "configuration": {"level": 3}}]}""".formatted(codec));
            for (int i = 0; i < 3; i++) {
                for (int j = 0; j < 3; j++) {
                    chunk(d.resolve(i + "." + j), i, j, true, true, codec);
                }
            }
            double[] got = readAll(d);
            for (int r = 0; r < ROWS; r++) {
                for (int c = 0; c < COLS; c++) {
                    assertThat(got[r * COLS + c]).as("%s (%d, %d)", codec, r, c).isEqualTo(value(r, c));
                }
            }
        }
    }

    @Test
    void aBloscCompressedIntegerVectorReadsBack(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("zarr.json"), """
                {"zarr_format": 3, "node_type": "array", "shape": [10], "data_type": "int16",
                 "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}},
                 "fill_value": 0,
                 "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                            {"name": "blosc", "configuration": {"cname": "zstd", "clevel": 5, "shuffle": "shuffle",
                                                                 "typesize": 2, "blocksize": 0}}]}""");
        ZarrCompressor blosc = new ZarrCompressor("blosc", "zstd", 5, 1);
        for (int j = 0; j < 3; j++) {
            ByteBuffer b = ByteBuffer.allocate(4 * 2).order(ByteOrder.LITTLE_ENDIAN);
            for (int k = 0; k < 4; k++) {
                b.putShort((short) (j * 4 + k < 10 ? -300 + 77 * (j * 4 + k) : 0));
            }
            Files.createDirectories(dir.resolve("c"));
            Files.write(dir.resolve("c/" + j), blosc.compress(b.array(), 2));
        }
        ZarrArray a = ZarrArray.open(dir);
        assertThat(a.shape()).isEqualTo(new ArrayShape(1, 1, 10));
        double[] got = a.read(0, 0, 1, 10);
        for (int i = 0; i < 10; i++) {
            assertThat(got[i]).as("element %d", i).isEqualTo(-300 + 77 * i);
        }
    }

    @Test
    void checksummedChunksReadBackAndADamagedChunkIsAnErrorNamingIt(@TempDir Path dir) throws IOException {
        for (String codec : new String[]{"crc32c", "zstd+crc32c"}) {
            Path d = Files.createDirectories(dir.resolve(codec + ".zarr"));
            String codecs = codec.equals("crc32c") ? "[{\"name\": \"bytes\"}, {\"name\": \"crc32c\"}]"
                    : "[{\"name\": \"bytes\"}, {\"name\": \"zstd\", \"configuration\": {\"level\": 3}}, {\"name\": \"crc32c\"}]";
            Files.writeString(d.resolve("zarr.json"), """
                    {"zarr_format": 3, "node_type": "array", "shape": [5, 7], "data_type": "float64",
                     "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2, 3]}},
                     "fill_value": 0.0, "codecs": %s}""".formatted(codecs));
            for (int i = 0; i < 3; i++) {
                for (int j = 0; j < 3; j++) {
                    chunk(d.resolve("c/" + i + "/" + j), i, j, false, false, codec);
                }
            }
            double[] got = readAll(d);
            for (int r = 0; r < ROWS; r++) {
                for (int c = 0; c < COLS; c++) {
                    assertThat(got[r * COLS + c]).as("%s (%d, %d)", codec, r, c).isEqualTo(value(r, c));
                }
            }
            Path damaged = d.resolve("c/1/2");
            byte[] bytes = Files.readAllBytes(damaged);
            bytes[1] ^= 0x10;
            Files.write(damaged, bytes);
            assertThatThrownBy(() -> readAll(d)).as(codec).isInstanceOf(ArrayFileException.class)
                    .hasMessageContaining(damaged.toString()).hasMessageContaining("chunk (1, 2)").hasMessageContaining("CRC-32C");
            Files.write(damaged, new byte[]{1, 2});
            assertThatThrownBy(() -> readAll(d)).as(codec).isInstanceOf(ArrayFileException.class)
                    .hasMessageContaining("too few for its CRC-32C");
        }
    }

    @Test
    void shardingBesideOtherCodecsGroupsAndOtherTypesAreRefusedByName(@TempDir Path dir) throws IOException {
        // Nested sharding is read when the inner sharding_indexed is its shard's only codec (ZarrV3NestedShardTest).
        Path sharded = Files.createDirectories(dir.resolve("sharded.zarr"));
        Files.writeString(sharded.resolve("zarr.json"), """
                {"zarr_format": 3, "node_type": "array", "shape": [8, 8], "data_type": "float64",
                 "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 4]}},
                 "fill_value": 0, "codecs": [{"name": "sharding_indexed", "configuration": {"chunk_shape": [2, 2],
                     "codecs": [{"name": "transpose", "configuration": {"order": [1, 0]}},
                                {"name": "sharding_indexed", "configuration": {"chunk_shape": [1, 1], "codecs": [{"name": "bytes"}]}}]}}]}""");
        assertThatThrownBy(() -> ZarrArray.open(sharded)).isInstanceOf(ArrayFileException.class)
                .hasMessageContaining(sharded.toString()).hasMessageContaining("codec 'sharding_indexed' is not supported");
        Path group = Files.createDirectories(dir.resolve("group.zarr"));
        Files.writeString(group.resolve("zarr.json"), "{\"zarr_format\": 3, \"node_type\": \"group\"}");
        assertThatThrownBy(() -> ZarrArray.open(group)).isInstanceOf(ArrayFileException.class)
                .hasMessageContaining("is a Zarr group, not an array");
        Path complex = Files.createDirectories(dir.resolve("complex.zarr"));
        Files.writeString(complex.resolve("zarr.json"), """
                {"zarr_format": 3, "node_type": "array", "shape": [8], "data_type": "complex128",
                 "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}},
                 "fill_value": 0, "codecs": [{"name": "bytes"}]}""");
        assertThatThrownBy(() -> ZarrArray.open(complex)).isInstanceOf(ArrayFileException.class)
                .hasMessageContaining("data_type complex128 is not supported");
    }
}
