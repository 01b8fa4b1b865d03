package io.dask4j.array.io;

import com.github.luben.zstd.Zstd;
import com.scalableminds.bloscjava.Blosc;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Zarr arrays someone else wrote to hurt the reader: chunks that decompress to more (far more: a decompression
 * bomb) or fewer bytes than their shape holds, chunk and shard files far larger than a chunk could be, shard
 * indexes whose entries overflow, metadata whose integers do not fit. Each must fail with an {@link
 * ArrayFileException} naming the file (and the chunk, for a chunk), without allocating more than the chunk's
 * shape needs: a worker that runs such a read keeps its heap. Chunks here are 4 x 4 float64, 128 bytes.
 */
class HostileZarrTest {
    private static final int CHUNK_BYTES = 4 * 4 * Double.BYTES;

    /** A v2 array of 4 x 4 float64 in one chunk, compressed by {@code compressor} (JSON), holding {@code chunk}. */
    private static Path zarrV2(Path dir, String compressor, byte[] chunk) throws IOException {
        Path z = Files.createDirectories(dir.resolve("a.zarr"));
        Files.writeString(z.resolve(".zarray"), "{\"zarr_format\": 2, \"shape\": [4, 4], \"chunks\": [4, 4], \"dtype\": \"<f8\","
                + " \"compressor\": " + compressor + ", \"fill_value\": 0, \"order\": \"C\", \"filters\": null}");
        Files.write(z.resolve("0.0"), chunk);
        return z;
    }

    private static void assertChunkError(ZarrArray a, Path chunkFile, String problem) {
        assertThatThrownBy(() -> a.read(0, 0, 4, 4)).isInstanceOf(ArrayFileException.class)
                .hasMessageStartingWith(chunkFile + ": chunk (0, 0)").hasMessageContaining(problem);
    }

    /** Bytes this thread allocated while {@code read} ran: what a read costs the worker's heap. */
    private static long allocatedBy(Runnable read) {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = mx.getCurrentThreadAllocatedBytes();
        read.run();
        return mx.getCurrentThreadAllocatedBytes() - before;
    }

    private static byte[] deflate(byte[] raw) {
        Deflater d = new Deflater(9);
        d.setInput(raw);
        d.finish();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[1 << 16];
        while (!d.finished()) {
            out.write(buf, 0, d.deflate(buf));
        }
        d.end();
        return out.toByteArray();
    }

    private static byte[] gzip(byte[] raw) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (GZIPOutputStream out = new GZIPOutputStream(bytes)) {
            out.write(raw);
        }
        return bytes.toByteArray();
    }

    @Test
    void aBloscBombFailsFromItsHeaderWithoutAllocatingWhatItClaims(@TempDir Path dir) throws IOException {
        // 16 MiB of zeros compress to about 1 KiB, a size a 128-byte chunk may have; decompressing them would
        // allocate all 16 MiB.
        byte[] bomb = Blosc.compress(new byte[16 << 20], 8, Blosc.Compressor.fromString("zstd"), 9, Blosc.Shuffle.fromInt(1));
        assertThat((long) bomb.length).isLessThan(ZarrCompressor.maxStoredBytes(CHUNK_BYTES));
        Path z = zarrV2(dir, "{\"id\": \"blosc\", \"cname\": \"zstd\", \"clevel\": 9, \"shuffle\": 1}", bomb);
        ZarrArray a = ZarrArray.open(z);
        long allocated = allocatedBy(() -> assertChunkError(a, z.resolve("0.0"), "its blosc header says it holds 16777216 bytes"));
        assertThat(allocated).as("bytes allocated by the refused read").isLessThan(8L << 20);
    }

    @Test
    void zlibGzipAndZstdChunksThatDecompressToMoreOrFewerBytesThanTheirShapeFail(@TempDir Path dir) throws IOException {
        byte[] more = new byte[1 << 20];
        byte[] fewer = new byte[CHUNK_BYTES - 8];
        String[][] cases = {
                {"{\"id\": \"zlib\", \"level\": 1}", "zlib"}, {"{\"id\": \"gzip\", \"level\": 1}", "gzip"}, {"{\"id\": \"zstd\", \"level\": 1}", "zstd"}};
        for (String[] c : cases) {
            for (byte[] raw : new byte[][]{more, fewer}) {
                byte[] stored = switch (c[1]) {
                    case "zlib" -> deflate(raw);
                    case "gzip" -> gzip(raw);
                    default -> Zstd.compress(raw, 1);
                };
                Path d = Files.createDirectories(dir.resolve(c[1] + raw.length));
                Path z = zarrV2(d, c[0], stored);
                ZarrArray a = ZarrArray.open(z);
                long allocated = allocatedBy(() -> assertChunkError(a, z.resolve("0.0"), raw == more
                        ? "decompresses to more than the 128 bytes of its shape" : "decompressed to 120 bytes, expected 128"));
                assertThat(allocated).as(c[1] + " of " + raw.length + " bytes").isLessThan(4L << 20);
            }
        }
    }

    @Test
    void aChunkFileFarLargerThanAnyCompressedChunkIsRefusedBeforeItIsRead(@TempDir Path dir) throws IOException {
        Path z = zarrV2(dir, "{\"id\": \"zstd\", \"level\": 1}", new byte[0]);
        try (RandomAccessFile f = new RandomAccessFile(z.resolve("0.0").toFile(), "rw")) {
            f.setLength(3L << 30); // sparse: costs no disk, but reading it whole is more than a Java array holds
        }
        ZarrArray a = ZarrArray.open(z);
        assertChunkError(a, z.resolve("0.0"), "holds 3221225472 bytes, more than a compressed chunk of 128 bytes can");
    }

    @Test
    void anUncompressedChunkFileOfTheWrongSizeIsRefusedNotReadInPart(@TempDir Path dir) throws IOException {
        Path z = zarrV2(dir, "null", new byte[CHUNK_BYTES + 8]);
        assertChunkError(ZarrArray.open(z), z.resolve("0.0"), "holds 136 bytes, an uncompressed chunk holds 128");
    }

    @Test
    void metadataIntegersThatDoNotFitALongAreRefusedNotWrappedAround(@TempDir Path dir) throws IOException {
        Path z = Files.createDirectories(dir.resolve("wrap.zarr"));
        // 2^64 + 4 would read as 4 if taken modulo 2^64.
        Files.writeString(z.resolve(".zarray"), "{\"zarr_format\": 2, \"shape\": [18446744073709551620, 4], \"chunks\": [4, 4],"
                + " \"dtype\": \"<f8\", \"compressor\": null, \"fill_value\": 0, \"order\": \"C\", \"filters\": null}");
        assertThatThrownBy(() -> ZarrArray.open(z)).isInstanceOf(ArrayFileException.class)
                .hasMessageStartingWith(z + ": shape [18446744073709551620, 4] is not a list of integers");
        Files.writeString(z.resolve(".zarray"), "{\"zarr_format\": 2, \"shape\": [4.5, 4], \"chunks\": [4, 4],"
                + " \"dtype\": \"<f8\", \"compressor\": null, \"fill_value\": 0, \"order\": \"C\", \"filters\": null}");
        assertThatThrownBy(() -> ZarrArray.open(z)).isInstanceOf(ArrayFileException.class)
                .hasMessageStartingWith(z + ": shape [4.5, 4] is not a list of integers");
    }

    @Test
    void aHugeOrDeeplyNestedMetadataFileIsRefusedWithoutReadingItWhole(@TempDir Path dir) throws IOException {
        Path huge = Files.createDirectories(dir.resolve("huge.zarr"));
        try (RandomAccessFile f = new RandomAccessFile(huge.resolve(".zarray").toFile(), "rw")) {
            f.setLength(3L << 30);
        }
        assertThatThrownBy(() -> ZarrArray.open(huge)).isInstanceOf(ArrayFileException.class)
                .hasMessageStartingWith(huge + ": .zarray holds 3221225472 bytes");
        Path deep = Files.createDirectories(dir.resolve("deep.zarr"));
        Files.writeString(deep.resolve(".zarray"), "{\"a\": " + "[".repeat(100_000) + "]".repeat(100_000) + "}");
        assertThatThrownBy(() -> ZarrArray.open(deep)).isInstanceOf(ArrayFileException.class)
                .hasMessageStartingWith(deep + ": .zarray is not valid JSON");
    }

    /** A v3 array of 4 x 4 float64 in one shard of one chunk, {@code chunk} at offset 0, its index saying {@code offset, length}. */
    private static Path shardedV3(Path dir, String innerCodecs, byte[] chunk, long offset, long length, long padTo) throws IOException {
        Path z = Files.createDirectories(dir.resolve("s.zarr"));
        Files.writeString(z.resolve("zarr.json"), """
                {"zarr_format": 3, "node_type": "array", "shape": [4, 4], "data_type": "float64",
                 "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 4]}}, "fill_value": 0,
                 "codecs": [{"name": "sharding_indexed", "configuration": {"chunk_shape": [4, 4], "codecs": %s,
                     "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}], "index_location": "start"}}]}"""
                .formatted(innerCodecs));
        Path shard = Files.createDirectories(z.resolve("c/0")).resolve("0");
        ByteBuffer b = ByteBuffer.allocate(16 + chunk.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(offset).putLong(length).put(chunk);
        Files.write(shard, b.array());
        if (padTo > 0) {
            try (RandomAccessFile f = new RandomAccessFile(shard.toFile(), "rw")) {
                f.setLength(padTo);
            }
        }
        return shard;
    }

    @Test
    void shardIndexEntriesThatOverflowOrSpanMoreThanAChunkCanAreRefused(@TempDir Path dir) throws IOException {
        String zstd = "[{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}, {\"name\": \"zstd\", \"configuration\": {\"level\": 1}}]";
        // offset + length wraps past 2^63 to a negative number, which a sum compared with the file's size lets through.
        Path shard = shardedV3(Files.createDirectories(dir.resolve("wrap")), zstd, new byte[8], Long.MAX_VALUE - 4, 8, 0);
        assertThatThrownBy(() -> ZarrArray.open(shard.getParent().getParent().getParent()).read(0, 0, 4, 4))
                .isInstanceOf(ArrayFileException.class).hasMessageStartingWith(shard + ": chunk (0, 0)")
                .hasMessageContaining("past the shard's 24 bytes");
        // A 3 GiB entry inside a 3 GiB (sparse) shard: within the file, but no compressed 128-byte chunk is that long.
        Path big = shardedV3(Files.createDirectories(dir.resolve("big")), zstd, new byte[8], 16, 3L << 30, (3L << 30) + 16);
        assertThatThrownBy(() -> ZarrArray.open(big.getParent().getParent().getParent()).read(0, 0, 4, 4))
                .isInstanceOf(ArrayFileException.class).hasMessageStartingWith(big + ": chunk (0, 0)")
                .hasMessageContaining("holds 3221225472 bytes, more than a compressed chunk of 128 bytes can");
    }

    @Test
    void aShardOfMoreChunksThanAnIndexCanListIsRefusedWhenTheArrayIsOpened(@TempDir Path dir) throws IOException {
        Path z = Files.createDirectories(dir.resolve("many.zarr"));
        // 65536 x 65536 inner chunks of 1 x 1: 2^32 index entries, which an int count wraps to 0.
        Files.writeString(z.resolve("zarr.json"), """
                {"zarr_format": 3, "node_type": "array", "shape": [65536, 65536], "data_type": "uint8",
                 "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [65536, 65536]}}, "fill_value": 0,
                 "codecs": [{"name": "sharding_indexed", "configuration": {"chunk_shape": [1, 1],
                     "codecs": [{"name": "bytes"}], "index_codecs": [{"name": "bytes"}]}}]}""");
        assertThatThrownBy(() -> ZarrArray.open(z)).isInstanceOf(ArrayFileException.class)
                .hasMessageStartingWith(z + ": sharding_indexed: a shard of [65536, 65536] holds 4294967296 chunks of [1, 1]");
    }
}
