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
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Sharded Zarr v3 arrays ({@code sharding_indexed}) laid out here byte by byte as the v3 specification says
 * (Debian's Python zarr writes only v2): a 5 x 7 float64 array in shards of 4 x 6 holding 2 x 3 inner chunks,
 * so shards at the edges hold chunks wholly outside the array. Inner chunks are stored in reverse order, so
 * only the index says where each is. Each array is read back element by element.
 */
class ZarrV3ShardTest {
    private static final int ROWS = 5;
    private static final int COLS = 7;
    private static final int SR = 4;
    private static final int SC = 6;
    private static final int CR = 2;
    private static final int CC = 3;

    private static double value(int r, int c) {
        return r * 100 + c + 0.25;
    }

    private static String metadata(String fill, String innerCodecs, String indexLocation, String indexCodecs) {
        return """
                {"zarr_format": 3, "node_type": "array", "shape": [5, 7], "data_type": "float64",
                 "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 6]}},
                 "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
                 "fill_value": %s,
                 "codecs": [{"name": "sharding_indexed", "configuration": {
                     "chunk_shape": [2, 3], "codecs": %s, "index_location": "%s", "index_codecs": %s}}]}"""
                .formatted(fill, innerCodecs, indexLocation, indexCodecs);
    }

    /**
     * Inner chunk (i, j) of the array (C order, little-endian, padded with -1), through zstd if asked, then ending
     * in its CRC-32C if asked.
     */
    private static byte[] innerChunk(int i, int j, boolean zstd, boolean crc) {
        ByteBuffer b = ByteBuffer.allocate(CR * CC * 8).order(ByteOrder.LITTLE_ENDIAN);
        for (int a = 0; a < CR; a++) {
            for (int c = 0; c < CC; c++) {
                int r = i * CR + a;
                int col = j * CC + c;
                b.putDouble(r < ROWS && col < COLS ? value(r, col) : -1);
            }
        }
        byte[] stored = zstd ? Zstd.compress(b.array(), 3) : b.array();
        if (!crc) {
            return stored;
        }
        CRC32C c = new CRC32C();
        c.update(stored);
        return ByteBuffer.allocate(stored.length + 4).order(ByteOrder.LITTLE_ENDIAN).put(stored).putInt((int) c.getValue()).array();
    }

    /**
     * Writes shard (si, sj): its inner chunks but those in {@code skip} (never written), in reverse order, and the
     * index at the start or end, with a CRC-32C if asked.
     */
    private static void shard(Path dir, int si, int sj, boolean zstd, boolean indexAtEnd, boolean crc, List<int[]> skip)
            throws IOException {
        shard(dir, si, sj, zstd, false, indexAtEnd, crc, skip);
    }

    /** As above, each inner chunk ending in its own CRC-32C if {@code chunkCrc}. */
    private static void shard(Path dir, int si, int sj, boolean zstd, boolean chunkCrc, boolean indexAtEnd, boolean crc,
                              List<int[]> skip) throws IOException {
        int down = SR / CR;
        int across = SC / CC;
        int n = down * across;
        int indexBytes = n * 16 + (crc ? 4 : 0);
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        long[] index = new long[2 * n];
        java.util.Arrays.fill(index, -1L);
        long base = indexAtEnd ? 0 : indexBytes;
        for (int k = n - 1; k >= 0; k--) {
            int i = si * down + k / across;
            int j = sj * across + k % across;
            if (skip.stream().anyMatch(s -> s[0] == i && s[1] == j)) {
                continue;
            }
            byte[] chunk = innerChunk(i, j, zstd, chunkCrc);
            index[2 * k] = base + body.size();
            index[2 * k + 1] = chunk.length;
            body.write(chunk);
        }
        ByteBuffer ix = ByteBuffer.allocate(indexBytes).order(ByteOrder.LITTLE_ENDIAN);
        for (long v : index) {
            ix.putLong(v);
        }
        if (crc) {
            CRC32C c = new CRC32C();
            c.update(ix.array(), 0, n * 16);
            ix.putInt((int) c.getValue());
        }
        ByteArrayOutputStream file = new ByteArrayOutputStream();
        if (!indexAtEnd) {
            file.write(ix.array());
        }
        file.write(body.toByteArray());
        if (indexAtEnd) {
            file.write(ix.array());
        }
        Path p = dir.resolve("c/" + si + "/" + sj);
        Files.createDirectories(p.getParent());
        Files.write(p, file.toByteArray());
    }

    private static void assertReadsBack(ZarrArray a, double fill, List<int[]> unwritten) {
        assertThat(a.shape()).isEqualTo(new ArrayShape(2, ROWS, COLS));
        assertThat(a.storageChunks()).containsExactly(SR, SC);
        double[] whole = a.read(0, 0, ROWS, COLS);
        double[] corner = a.read(1, 2, 3, 4);   // overlaps all four shards
        for (int r = 0; r < ROWS; r++) {
            for (int c = 0; c < COLS; c++) {
                int i = r / CR;
                int j = c / CC;
                double expected = unwritten.stream().anyMatch(s -> s[0] == i && s[1] == j) ? fill : value(r, c);
                assertThat(Double.compare(whole[r * COLS + c], expected)).as("(%d, %d): %s, expected %s", r, c, whole[r * COLS + c], expected).isZero();
                if (r >= 1 && r < 4 && c >= 2 && c < 6) {
                    assertThat(Double.compare(corner[(r - 1) * 4 + c - 2], expected)).as("block (%d, %d)", r, c).isZero();
                }
            }
        }
    }

    @Test
    void uncompressedChunksWithAChecksummedIndexAtTheEndReadBackAndUnwrittenOnesReadAsTheFillValue(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("zarr.json"), metadata("\"NaN\"", "[{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}]",
                "end", "[{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}, {\"name\": \"crc32c\"}]"));
        List<int[]> skipped = List.of(new int[]{1, 0});
        shard(dir, 0, 0, false, true, true, skipped);
        shard(dir, 1, 0, false, true, true, List.of());
        shard(dir, 1, 1, false, true, true, List.of());
        // shard (0, 1) is never written: its chunks (0, 2) and (1, 2) read as the fill value too
        List<int[]> unwritten = new ArrayList<>(skipped);
        unwritten.add(new int[]{0, 2});
        unwritten.add(new int[]{1, 2});
        assertReadsBack(ZarrArray.open(dir), Double.NaN, unwritten);
    }

    @Test
    void zstdChunksWithTheIndexAtTheStartReadBack(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("zarr.json"), metadata("0.0",
                "[{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}, {\"name\": \"zstd\", \"configuration\": {\"level\": 3}}]",
                "start", "[{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}]"));
        for (int si = 0; si < 2; si++) {
            for (int sj = 0; sj < 2; sj++) {
                shard(dir, si, sj, true, false, false, List.of(new int[]{2, 2}));
            }
        }
        assertReadsBack(ZarrArray.open(dir), 0.0, List.of(new int[]{2, 2}));
    }

    @Test
    void innerChunksEndingInTheirOwnChecksumReadBack(@TempDir Path dir) throws IOException {
        for (boolean zstd : new boolean[]{false, true}) {
            Path d = Files.createDirectories(dir.resolve("zstd-" + zstd));
            String inner = zstd ? "[{\"name\": \"bytes\"}, {\"name\": \"zstd\"}, {\"name\": \"crc32c\"}]"
                    : "[{\"name\": \"bytes\"}, {\"name\": \"crc32c\"}]";
            Files.writeString(d.resolve("zarr.json"), metadata("0.0", inner, "end", "[{\"name\": \"bytes\"}, {\"name\": \"crc32c\"}]"));
            for (int si = 0; si < 2; si++) {
                for (int sj = 0; sj < 2; sj++) {
                    shard(d, si, sj, zstd, true, true, true, List.of());
                }
            }
            assertReadsBack(ZarrArray.open(d), 0.0, List.of());
        }
    }

    @Test
    void aCorruptIndexFailsTheReadNamingTheShard(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("zarr.json"), metadata("0", "[{\"name\": \"bytes\"}]",
                "end", "[{\"name\": \"bytes\"}, {\"name\": \"crc32c\"}]"));
        shard(dir, 0, 0, false, true, true, List.of());
        Path file = dir.resolve("c/0/0");
        byte[] bytes = Files.readAllBytes(file);
        bytes[bytes.length - 20] ^= 1;   // inside the index: the checksum no longer matches
        Files.write(file, bytes);
        ZarrArray a = ZarrArray.open(dir);
        assertThatThrownBy(() -> a.read(0, 0, 2, 3)).isInstanceOf(ArrayFileException.class)
                .hasMessageContaining(file.toString()).hasMessageContaining("CRC-32C");
        Files.write(file, new byte[10]);
        assertThatThrownBy(() -> a.read(0, 0, 2, 3)).isInstanceOf(ArrayFileException.class)
                .hasMessageContaining(file.toString()).hasMessageContaining("truncated");
    }

    @Test
    void shardingThatDoesNotFitOrUnsupportedInnerCodecsAreRefusedByName(@TempDir Path dir) throws IOException {
        Path uneven = Files.createDirectories(dir.resolve("uneven.zarr"));
        Files.writeString(uneven.resolve("zarr.json"), metadata("0", "[{\"name\": \"bytes\"}]", "end", "[{\"name\": \"bytes\"}]")
                .replace("\"chunk_shape\": [2, 3]", "\"chunk_shape\": [3, 3]"));
        assertThatThrownBy(() -> ZarrArray.open(uneven)).isInstanceOf(ArrayFileException.class)
                .hasMessageContaining("chunk_shape [3, 3] does not divide the shard shape [4, 6]");
        Path checksummed = Files.createDirectories(dir.resolve("crc.zarr"));
        Files.writeString(checksummed.resolve("zarr.json"), metadata("0",
                "[{\"name\": \"bytes\"}, {\"name\": \"crc32c\"}, {\"name\": \"zstd\"}]", "end", "[{\"name\": \"bytes\"}]"));
        assertThatThrownBy(() -> ZarrArray.open(checksummed)).isInstanceOf(ArrayFileException.class)
                .hasMessageContaining("crc32c must be the last codec");
        Path index = Files.createDirectories(dir.resolve("index.zarr"));
        Files.writeString(index.resolve("zarr.json"), metadata("0", "[{\"name\": \"bytes\"}]", "middle", "[{\"name\": \"bytes\"}]"));
        assertThatThrownBy(() -> ZarrArray.open(index)).isInstanceOf(ArrayFileException.class)
                .hasMessageContaining("index_location middle");
    }
}
