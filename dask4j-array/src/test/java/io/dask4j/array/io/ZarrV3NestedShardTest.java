package io.dask4j.array.io;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.zip.CRC32C;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Nested sharding laid out byte by byte as the v3 specification says (zarrita cannot write shards): a 10 x 17
 * array in shards of 8 x 12, each a grid of nested shards of 4 x 6, each a grid of 2 x 3 chunks. The outer
 * index is at the end with a CRC-32C, the nested ones at the start without; a nested index's offsets count from
 * the start of the nested shard's bytes. Unwritten chunks, nested shards and shards read as the fill value.
 */
class ZarrV3NestedShardTest {
    private static final int ROWS = 10;
    private static final int COLS = 17;
    /** The shapes of the shards, the nested shards and the chunks. */
    private static final int[][] LEVELS = {{8, 12}, {4, 6}, {2, 3}};
    private static final boolean[] INDEX_AT_END = {true, false};

    private static final String METADATA = """
            {"zarr_format": 3, "node_type": "array", "shape": [10, 17], "data_type": "float64",
             "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [8, 12]}},
             "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}}, "fill_value": "NaN",
             "codecs": [{"name": "sharding_indexed", "configuration": {"chunk_shape": [4, 6], "index_location": "end",
                 "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
                 "codecs": [{"name": "sharding_indexed", "configuration": {"chunk_shape": [2, 3], "index_location": "start",
                     "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}%s],
                     "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}}]}}]}""";

    private static double value(int r, int c) {
        return r * 100 + c + 0.75;
    }

    /** Chunk (i, j): C order, little-endian, padded with -1 past the array's edges. */
    private static byte[] chunk(int i, int j) {
        int cr = LEVELS[2][0];
        int cc = LEVELS[2][1];
        ByteBuffer b = ByteBuffer.allocate(cr * cc * 8).order(ByteOrder.LITTLE_ENDIAN);
        for (int a = 0; a < cr; a++) {
            for (int c = 0; c < cc; c++) {
                int r = i * cr + a;
                int col = j * cc + c;
                b.putDouble(r < ROWS && col < COLS ? value(r, col) : -1);
            }
        }
        return b.array();
    }

    /**
     * The bytes of the level-{@code level} shard whose first element is ({@code r0}, {@code c0}): its parts
     * (nested shards or chunks) in reverse order and its index; {@code null} if no chunk under it is written.
     */
    private static byte[] shard(int level, int r0, int c0, boolean[] crc, Set<List<Integer>> unwritten) throws IOException {
        int subRows = LEVELS[level + 1][0];
        int subCols = LEVELS[level + 1][1];
        int across = LEVELS[level][1] / subCols;
        int n = LEVELS[level][0] / subRows * across;
        byte[][] parts = new byte[n][];
        for (int k = 0; k < n; k++) {
            int r = r0 + k / across * subRows;
            int c = c0 + k % across * subCols;
            boolean chunks = level + 2 == LEVELS.length;
            // Chunks wholly past the array's edges are never written (an edge shard's grid still counts them).
            boolean stored = r < ROWS && c < COLS && !unwritten.contains(List.of(r / subRows, c / subCols));
            parts[k] = !chunks ? shard(level + 1, r, c, crc, unwritten) : stored ? chunk(r / subRows, c / subCols) : null;
        }
        if (Arrays.stream(parts).allMatch(p -> p == null)) {
            return null;
        }
        int indexBytes = n * 16 + (crc[level] ? 4 : 0);
        long base = INDEX_AT_END[level] ? 0 : indexBytes;
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        ByteBuffer index = ByteBuffer.allocate(indexBytes).order(ByteOrder.LITTLE_ENDIAN);
        long[] entries = new long[2 * n];
        Arrays.fill(entries, -1L);
        for (int k = n - 1; k >= 0; k--) {
            if (parts[k] != null) {
                entries[2 * k] = base + body.size();
                entries[2 * k + 1] = parts[k].length;
                body.write(parts[k]);
            }
        }
        for (long e : entries) {
            index.putLong(e);
        }
        if (crc[level]) {
            CRC32C c = new CRC32C();
            c.update(index.array(), 0, n * 16);
            index.putInt((int) c.getValue());
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(INDEX_AT_END[level] ? body.toByteArray() : index.array());
        out.write(INDEX_AT_END[level] ? index.array() : body.toByteArray());
        return out.toByteArray();
    }

    private static void write(Path dir, boolean nestedCrc, Set<List<Integer>> unwritten) throws IOException {
        Files.writeString(dir.resolve("zarr.json"), METADATA.formatted(nestedCrc ? ", {\"name\": \"crc32c\"}" : ""));
        for (int si = 0; si * LEVELS[0][0] < ROWS; si++) {
            for (int sj = 0; sj * LEVELS[0][1] < COLS; sj++) {
                byte[] bytes = shard(0, si * LEVELS[0][0], sj * LEVELS[0][1], new boolean[]{true, nestedCrc}, unwritten);
                if (bytes != null) {
                    Path file = dir.resolve("c/" + si + "/" + sj);
                    Files.createDirectories(file.getParent());
                    Files.write(file, bytes);
                }
            }
        }
    }

    @Test
    void chunksOfNestedShardsReadBackAndUnwrittenChunksNestedShardsAndShardsReadAsTheFillValue(@TempDir Path dir) throws IOException {
        // One chunk; the nested shard of rows 4-7, columns 12-17 whole; shard (1, 1) whole (rows 8-9, columns 12-16).
        Set<List<Integer>> unwritten = Set.of(List.of(0, 1), List.of(2, 4), List.of(2, 5), List.of(3, 4), List.of(3, 5),
                List.of(4, 4), List.of(4, 5));
        write(dir, false, unwritten);
        assertThat(dir.resolve("c/1/1")).doesNotExist();
        ZarrArray a = ZarrArray.open(dir);
        assertThat(a.storageChunks()).containsExactly(8, 12);
        assertThat(a.shards().nested()).isNotNull();
        double[] whole = a.read(0, 0, ROWS, COLS);
        double[] block = a.read(3, 5, 6, 9);   // crosses shards and nested shards, starts and ends inside chunks
        for (int r = 0; r < ROWS; r++) {
            for (int c = 0; c < COLS; c++) {
                double expected = unwritten.contains(List.of(r / 2, c / 3)) ? Double.NaN : value(r, c);
                assertThat(Double.compare(whole[r * COLS + c], expected)).as("(%d, %d): %s", r, c, whole[r * COLS + c]).isZero();
                if (r >= 3 && r < 9 && c >= 5 && c < 14) {
                    assertThat(Double.compare(block[(r - 3) * 9 + c - 5], expected)).as("block (%d, %d)", r, c).isZero();
                }
            }
        }
    }

    @Test
    void aDamagedNestedIndexFailsTheReadsOfItsChunksNamingTheShardAndTheBytes(@TempDir Path dir) throws IOException {
        write(dir, true, Set.of());
        Path file = dir.resolve("c/0/0");
        byte[] bytes = Files.readAllBytes(file);
        // The outer index is at the end, after the nested shards in reverse order: the last one (rows 4-7,
        // columns 6-11) comes first, its index at its start.
        bytes[0] ^= 1;
        Files.write(file, bytes);
        ZarrArray a = ZarrArray.open(dir);
        assertThatThrownBy(() -> a.read(4, 6, 4, 6)).isInstanceOf(ArrayFileException.class)
                .hasMessageContaining(file.toString()).hasMessageContaining("in the nested shard at bytes 0 to ")
                .hasMessageContaining("CRC-32C does not match");
        assertThat(a.read(0, 0, 4, 6)[0]).isEqualTo(value(0, 0));
    }
}
