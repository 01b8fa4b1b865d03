package io.dask4j.array.io;

import java.io.EOFException;
import java.io.IOException;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * The layout of a Zarr v3 array stored with the {@code sharding_indexed} codec: each file (a shard) holds a
 * grid of inner chunks, each encoded alone, and an index of where each one is. The index, at the shard's end or
 * start, is an {@code (offset, nbytes)} pair of unsigned 64-bit integers per inner chunk in C order over the
 * shard's chunk grid, both all ones for a chunk that was never written; it may end with a CRC-32C of the pairs.
 * With nested sharding each inner chunk is itself a shard, laid out as {@code nested} says: its bytes hold its
 * own chunks and its own index, whose offsets count from the start of those bytes.
 * Immutable, thread-safe, serializable: it travels in every read task within its {@link ZarrArray}.
 *
 * @param rows          rows per shard (1 for a 1-D array)
 * @param cols          columns per shard
 * @param indexAtEnd    whether the index is at the shard's end (the default) rather than its start
 * @param indexBigEndian whether the index's integers are big-endian
 * @param indexChecksum whether a CRC-32C follows the index's pairs
 * @param nested        the layout of each inner chunk when it is a shard too, or {@code null}
 */
public record ZarrShards(int rows, int cols, boolean indexAtEnd, boolean indexBigEndian, boolean indexChecksum,
                         ZarrShards nested) implements Serializable {

    /** The entry of an inner chunk that was never written. */
    private static final long EMPTY = -1L;

    /** How many inner chunks of {@code chunkRows x chunkCols} a shard holds (at most {@link #MAX_CHUNKS}, checked at open). */
    int chunksPerShard(int chunkRows, int chunkCols) {
        return Math.toIntExact((long) (rows / chunkRows) * (cols / chunkCols));
    }

    /** The most inner chunks a shard may hold: its index (16 bytes a chunk, and a CRC-32C) must fit one Java array. */
    static final long MAX_CHUNKS = (Integer.MAX_VALUE - 8 - Integer.BYTES) / 16;

    /** The shard's position in the grid of shards for inner chunk ({@code i}, {@code j}). */
    int[] shardOf(int i, int j, int chunkRows, int chunkCols) {
        return new int[]{i / (rows / chunkRows), j / (cols / chunkCols)};
    }

    /**
     * Where the chunk ({@code i}, {@code j}) (array-wide positions of chunks of {@code chunkRows x chunkCols})
     * lies in its shard file: {@code {offset, length}}, or {@code null} if it was never written. Reads the index
     * of each level of sharding on the way down, unless {@code indexes} (this block's, by file and position)
     * already holds it.
     *
     * @throws java.nio.file.NoSuchFileException if the shard was never written
     * @throws IOException                       if an index is truncated, fails its checksum or points past its shard
     */
    long[] locate(Path shard, int i, int j, int chunkRows, int chunkCols, Map<IndexAt, long[]> indexes) throws IOException {
        FileChannel ch = null;
        try {
            long start = 0;
            long size = -1;
            int depth = 0;
            for (ZarrShards level = this; ; level = level.nested, depth++) {
                int subRows = level.nested == null ? chunkRows : level.nested.rows;
                int subCols = level.nested == null ? chunkCols : level.nested.cols;
                IndexAt at = new IndexAt(shard, start, depth);
                long[] index = indexes.get(at);
                if (index == null) {
                    if (ch == null) {
                        ch = FileChannel.open(shard, StandardOpenOption.READ);
                    }
                    index = level.readIndex(ch, start, size, level.chunksPerShard(subRows, subCols));
                    indexes.put(at, index);
                }
                int down = level.rows / subRows;
                int across = level.cols / subCols;
                int k = (int) ((long) i * chunkRows / subRows % down) * across + (int) ((long) j * chunkCols / subCols % across);
                if (isEmpty(index, k)) {
                    return null;
                }
                start += index[2 * k];
                size = index[2 * k + 1];
                if (level.nested == null) {
                    return new long[]{start, size};
                }
            }
        } finally {
            if (ch != null) {
                ch.close();
            }
        }
    }

    /**
     * Which index: the one of the shard (or, at {@code depth > 0}, nested shard) whose bytes start at
     * {@code start} in {@code file}. A shard and its first nested shard may start at the same byte.
     */
    record IndexAt(Path file, long start, int depth) {
    }

    /**
     * The index of the shard held by {@code size} bytes of {@code ch} from {@code start} ({@code size < 0}: the
     * whole file; else a nested shard): {@code 2 * n} longs, offset (from {@code start}) then byte count of each
     * of its {@code n} inner chunks, or {@code -1, -1} for a chunk never written.
     */
    private long[] readIndex(FileChannel ch, long start, long size, int n) throws IOException {
        boolean whole = size < 0;
        // A nested shard's problems are a shard's problems, said of the bytes that hold it.
        String where = whole ? "" : "in the nested shard at bytes " + start + " to " + (start + size) + ": ";
        size = whole ? ch.size() : size;
        int pairs = Math.multiplyExact(n, 16);
        int bytes = pairs + (indexChecksum ? 4 : 0);
        if (size < bytes) {
            throw new EOFException(where + "the shard has " + size + " bytes, its index of " + n + " chunks needs " + bytes);
        }
        ByteBuffer b = ByteBuffer.allocate(bytes);
        long at = start + (indexAtEnd ? size - bytes : 0);
        while (b.hasRemaining()) {
            if (ch.read(b, at + b.position()) < 0) {
                throw new EOFException(where + "the shard ends inside its index");
            }
        }
        if (indexChecksum) {
            CRC32C crc = new CRC32C();
            crc.update(b.array(), 0, pairs);
            int stored = b.order(ByteOrder.LITTLE_ENDIAN).getInt(pairs);
            if ((int) crc.getValue() != stored) {
                throw new IOException(where + "the shard index's CRC-32C does not match");
            }
        }
        b.order(indexBigEndian ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
        long[] index = new long[2 * n];
        for (int k = 0; k < 2 * n; k += 2) {
            index[k] = b.getLong(k * 8);
            index[k + 1] = b.getLong(k * 8 + 8);
            boolean empty = index[k] == EMPTY && index[k + 1] == EMPTY;
            // length > size - offset, not offset + length > size: the sum of two huge entries wraps negative.
            if (!empty && (index[k] < 0 || index[k + 1] < 0 || index[k + 1] > size - index[k])) {
                throw new IOException(where + "the shard index puts chunk " + k / 2 + " at bytes " + Long.toUnsignedString(index[k])
                        + " + " + Long.toUnsignedString(index[k + 1]) + ", past the shard's " + size + " bytes");
            }
        }
        return index;
    }

    /** Whether entry {@code k} of an index says its chunk was never written. */
    static boolean isEmpty(long[] index, int k) {
        return index[2 * k] == EMPTY && index[2 * k + 1] == EMPTY;
    }
}
