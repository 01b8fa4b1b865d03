package io.dask4j.array.io;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * A Zarr v2 array: a directory with a {@code .zarray} JSON file (shape, chunks, dtype, compressor,
 * fill_value, order) and one file per chunk, named by its grid position ({@code "i.j"}, or {@code "i/j"} with
 * {@code dimension_separator "/"}). A missing chunk file reads as the fill value, as in Zarr. Every chunk is
 * stored whole (edge chunks padded), so a block reads each chunk it overlaps and copies the overlap.
 *
 * <p>Reads uncompressed chunks with positional reads of just the rows needed; compressed chunks are read
 * whole and decompressed. Writes chunks of little-endian float64 in C order, each to a temporary file moved
 * into place, so a reader never sees half a chunk. Immutable, thread-safe, serializable.
 *
 * <p>A Zarr v3 array's {@code zarr.json} is read by {@link ZarrV3} into the same record: v3 stores chunks as
 * v2 does and names them {@code c/i/j}, which {@code keyPrefix} and {@code separator} say. A sharded v3 array
 * ({@link ZarrShards}) keeps many chunks in each file: then the chunk fields describe the inner chunks and the
 * files are named by their shard's position.
 *
 * <p>There is no Zarr library for the JVM that Maven Central serves whole (zarr-java needs netCDF-Java from
 * another repository), and v2's layout is a JSON file and a naming rule, so this class is the glue; the
 * compressors come from libraries ({@link ZarrCompressor}).
 *
 * @param dir        the array's directory
 * @param shape      the array's shape
 * @param chunkRows  rows per chunk (1 for a 1-D array)
 * @param chunkCols  columns per chunk
 * @param type       the stored element type
 * @param fortran    whether elements within a chunk are in column-major order
 * @param compressor how chunks are compressed
 * @param fill       the value of elements in chunks that were never written
 * @param separator  between chunk indices in a chunk's file name
 * @param keyPrefix  before the chunk indices: empty in v2, {@code "c/"} in v3's default chunk key encoding
 * @param shards     the shards holding the chunks, or {@code null} for a file per chunk
 * @param checksummed whether each stored chunk ends in a CRC-32C of its bytes (v3's {@code crc32c} codec)
 */
public record ZarrArray(String dir, ArrayShape shape, int chunkRows, int chunkCols, ElementType type, boolean fortran,
                        ZarrCompressor compressor, double fill, String separator, String keyPrefix,
                        ZarrShards shards, boolean checksummed) implements BlockReader {

    private static final ObjectMapper JSON = new ObjectMapper();
    /**
     * The largest metadata file read: far more than any array's shape, codecs and attributes take, and small
     * enough that a huge file named {@code .zarray} cannot exhaust the client's memory.
     */
    static final long MAX_METADATA_BYTES = 64L << 20;

    /**
     * Reads the array's {@code .zarray} (v2) or {@code zarr.json} (v3, see {@link ZarrV3}); everything about the
     * array but its chunks is checked here.
     */
    @SuppressWarnings("unchecked")
    public static ZarrArray open(Path dir) {
        if (!Files.exists(dir.resolve(".zarray")) && Files.exists(dir.resolve("zarr.json"))) {
            return ZarrV3.open(dir);
        }
        Map<String, Object> m = metadata(dir, ".zarray");
        if (!Integer.valueOf(2).equals(m.get("zarr_format"))) {
            throw new ArrayFileException(dir, "zarr_format " + m.get("zarr_format") + " is not supported (2 is)");
        }
        if (m.get("filters") != null && !(m.get("filters") instanceof List<?> l && l.isEmpty())) {
            throw new ArrayFileException(dir, "filters " + m.get("filters") + " are not supported");
        }
        if (m.get("compressor") != null && !(m.get("compressor") instanceof Map)) {
            throw new ArrayFileException(dir, "compressor " + m.get("compressor") + " is neither null nor an object");
        }
        long[] dims = longs(m.get("shape"), "shape", dir);
        long[] chunks = longs(m.get("chunks"), "chunks", dir);
        if (chunks.length != dims.length || Arrays.stream(chunks).anyMatch(c -> c <= 0 || c > Integer.MAX_VALUE)) {
            throw new ArrayFileException(dir, "chunks " + Arrays.toString(chunks) + " do not fit shape " + Arrays.toString(dims));
        }
        ArrayShape shape = ArrayShape.of(dims, dir);
        if (!(m.get("dtype") instanceof String dtype)) {
            throw new ArrayFileException(dir, "dtype " + m.get("dtype") + " is not supported (structured types are not)");
        }
        ElementType type = ElementType.parse(dtype, dir);
        String order = String.valueOf(m.getOrDefault("order", "C"));
        if (!order.equals("C") && !order.equals("F")) {
            throw new ArrayFileException(dir, "order '" + order + "' is neither C nor F");
        }
        int chunkRows = dims.length == 1 ? 1 : (int) chunks[0];
        int chunkCols = (int) chunks[dims.length - 1];
        if ((long) chunkRows * chunkCols * type.bytes() > Integer.MAX_VALUE - 8) {
            throw new ArrayFileException(dir, "chunks " + Arrays.toString(chunks) + " are larger than 2 GiB");
        }
        return new ZarrArray(dir.toString(), shape, chunkRows, chunkCols, type, order.equals("F"),
                ZarrCompressor.fromMetadata((Map<String, Object>) m.get("compressor"), dir),
                fillValue(m.get("fill_value"), dir), separator("dimension_separator", Objects.requireNonNullElse(m.get("dimension_separator"), "."), dir),
                "", null, false);
    }

    /** The JSON object in {@code dir}'s metadata file {@code name}; a missing, unreadable or invalid file is refused. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> metadata(Path dir, String name) {
        try {
            long size = Files.size(dir.resolve(name));
            if (size > MAX_METADATA_BYTES) {
                throw new ArrayFileException(dir, name + " holds " + size + " bytes, more than the " + MAX_METADATA_BYTES
                        + " bytes metadata is read up to");
            }
            return JSON.readValue(Files.readAllBytes(dir.resolve(name)), Map.class);
        } catch (NoSuchFileException e) {
            throw new ArrayFileException(dir, Files.isDirectory(dir) ? "not a Zarr array (no .zarray or zarr.json)" : "no such directory", e);
        } catch (JacksonException e) {
            throw new ArrayFileException(dir, name + " is not valid JSON: " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new ArrayFileException(dir, "reading " + name + " failed: " + e, e);
        }
    }

    /** An empty array to be written by {@link #writeChunk} and finished by {@link #writeMetadata()}. */
    public static ZarrArray forWriting(Path dir, ArrayShape shape, int chunkRows, int chunkCols, ZarrCompressor compressor) {
        return new ZarrArray(dir.toString(), shape, chunkRows, chunkCols, ElementType.FLOAT64_LE, false, compressor, 0.0, ".", "", null, false);
    }

    /**
     * A JSON list of integers. Only JSON integers that fit a long are taken: {@code longValue()} of a larger one
     * wraps around (2^64 + 4 would read as 4) and of a fraction truncates, either of which would read the file with
     * a shape it does not have.
     */
    static long[] longs(Object v, String name, Path dir) {
        if (!(v instanceof List<?> list) || !list.stream().allMatch(x -> x instanceof Integer || x instanceof Long
                || x instanceof java.math.BigInteger b && b.bitLength() < Long.SIZE)) {
            throw new ArrayFileException(dir, name + " " + v + " is not a list of integers");
        }
        return list.stream().mapToLong(x -> ((Number) x).longValue()).toArray();
    }

    /**
     * A chunk key's separator, which Zarr allows to be {@code .} or {@code /} only: anything else (say {@code
     * /../../}) would make chunk names point outside the array's directory.
     */
    static String separator(String name, Object sep, Path dir) {
        if (!".".equals(sep) && !"/".equals(sep)) {
            throw new ArrayFileException(dir, name + " '" + sep + "' is not supported (. and / are)");
        }
        return (String) sep;
    }

    static double fillValue(Object v, Path dir) {
        return switch (v) {
            case null -> 0.0;
            case Number n -> n.doubleValue();
            case String s when s.equals("NaN") -> Double.NaN;
            case String s when s.equals("Infinity") -> Double.POSITIVE_INFINITY;
            case String s when s.equals("-Infinity") -> Double.NEGATIVE_INFINITY;
            default -> throw new ArrayFileException(dir, "fill_value " + v + " is not a number");
        };
    }

    @Override
    public int[] storageChunks() {
        return shards == null ? new int[]{chunkRows, chunkCols} : new int[]{shards.rows(), shards.cols()};
    }

    /** The file of chunk ({@code i}, {@code j}): its own, or its shard's. */
    Path chunkFile(int i, int j) {
        if (shards != null) {
            int[] s = shards.shardOf(i, j, chunkRows, chunkCols);
            i = s[0];
            j = s[1];
        }
        return Path.of(dir, keyPrefix + (shape.ndim() == 1 ? String.valueOf(j) : i + separator + j));
    }

    @Override
    public double[] read(long r0, long c0, int rows, int cols) {
        double[] out = new double[Math.multiplyExact(rows, cols)];
        if (out.length == 0) {
            return out;
        }
        ArrayShape chunkShape = shape.ndim() == 1 ? new ArrayShape(1, 1, chunkCols) : new ArrayShape(2, chunkRows, chunkCols);
        // A block usually reads many chunks of one shard: each shard's index (and nested shard's) is read once per block.
        Map<ZarrShards.IndexAt, long[]> shardIndexes = new HashMap<>();
        for (int i = (int) (r0 / chunkRows); i <= (r0 + rows - 1) / chunkRows; i++) {
            long top = Math.max(r0, (long) i * chunkRows);
            long bottom = Math.min(r0 + rows, (long) (i + 1) * chunkRows);
            for (int j = (int) (c0 / chunkCols); j <= (c0 + cols - 1) / chunkCols; j++) {
                long left = Math.max(c0, (long) j * chunkCols);
                long right = Math.min(c0 + cols, (long) (j + 1) * chunkCols);
                int outIndex = (int) ((top - r0) * cols + (left - c0));
                readChunkPart(chunkShape, i, j, top - (long) i * chunkRows, left - (long) j * chunkCols,
                        (int) (bottom - top), (int) (right - left), out, outIndex, cols, shardIndexes);
            }
        }
        return out;
    }

    private void readChunkPart(ArrayShape chunkShape, int i, int j, long r, long c, int h, int w, double[] out, int outIndex, int stride,
                               Map<ZarrShards.IndexAt, long[]> shardIndexes) {
        Path file = chunkFile(i, j);
        int chunkBytes = chunkShape.rows() * chunkShape.cols() * type.bytes();
        try {
            long offset = 0;
            long length = -1;
            if (shards != null) {
                long[] where = shards.locate(file, i, j, chunkRows, chunkCols, shardIndexes);
                if (where == null) {
                    fill(out, outIndex, stride, h, w);
                    return;
                }
                offset = where[0];
                length = where[1];
                int expected = chunkBytes + (checksummed ? Integer.BYTES : 0);
                if (compressor.id() == null && length != expected) {
                    throw new IOException("its shard holds " + length + " bytes for it, not " + expected);
                }
            }
            if (compressor.id() == null && !checksummed) {
                RawArray layout = new RawArray(file.toString(), offset, chunkShape, type, fortran);
                try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                    // A chunk file of another size is another array's chunk (or half of one): never read in part.
                    long size = ch.size();
                    if (shards == null && size != chunkBytes) {
                        String problem = "it holds " + size + " bytes, an uncompressed chunk holds " + chunkBytes;
                        throw size < chunkBytes ? new java.io.EOFException(problem) : new IOException(problem);
                    }
                    layout.readInto(ch, r, c, h, w, out, outIndex, stride);
                }
                return;
            }
            byte[] stored = readStored(file, offset, length, chunkBytes);
            byte[] raw = compressor.decompress(checksummed ? withoutChecksum(stored) : stored, chunkBytes);
            MemorySegment seg = MemorySegment.ofArray(raw);
            for (int k = 0; k < (fortran ? w : h); k++) {
                if (!fortran) {
                    type.decode(seg, ((r + k) * chunkCols + c) * type.bytes(), out, outIndex + k * stride, w);
                } else {
                    double[] column = new double[h];
                    type.decode(seg, ((c + k) * chunkRows + r) * type.bytes(), column, 0, h);
                    for (int x = 0; x < h; x++) {
                        out[outIndex + x * stride + k] = column[x];
                    }
                }
            }
        } catch (NoSuchFileException e) {
            fill(out, outIndex, stride, h, w);
        } catch (IOException | RuntimeException e) {
            if (e instanceof ArrayFileException afe) {
                throw afe;
            }
            throw new ArrayFileException(file, "chunk (" + i + ", " + j + ") is unreadable: "
                    + (e instanceof java.io.EOFException ? "truncated: " : "") + e.getMessage(), e);
        }
    }

    private void fill(double[] out, int outIndex, int stride, int h, int w) {
        for (int x = 0; x < h; x++) {
            Arrays.fill(out, outIndex + x * stride, outIndex + x * stride + w, fill);
        }
    }

    /**
     * A stored chunk's bytes without the CRC-32C that ends them (little-endian, of the bytes before it), once it
     * matches: a chunk damaged on disk is an error, never values read silently wrong.
     */
    private static byte[] withoutChecksum(byte[] stored) throws IOException {
        int n = stored.length - Integer.BYTES;
        if (n < 0) {
            throw new java.io.EOFException("it holds " + stored.length + " bytes, too few for its CRC-32C");
        }
        CRC32C crc = new CRC32C();
        crc.update(stored, 0, n);
        int expected = ByteBuffer.wrap(stored, n, Integer.BYTES).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt();
        if ((int) crc.getValue() != expected) {
            throw new IOException("its CRC-32C does not match its bytes (the chunk is damaged)");
        }
        return Arrays.copyOf(stored, n);
    }

    /**
     * A compressed chunk's stored bytes: the whole file, or {@code length} bytes from {@code offset} of its shard
     * ({@code length < 0} for a file of its own). Refused before anything is allocated when there are more than a
     * compressed chunk of {@code chunkBytes} can take ({@link ZarrCompressor#maxStoredBytes}).
     */
    private static byte[] readStored(Path file, long offset, long length, int chunkBytes) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long n = length < 0 ? ch.size() : length;
            if (n > ZarrCompressor.maxStoredBytes(chunkBytes)) {
                throw new IOException((length < 0 ? "it" : "its shard entry") + " holds " + n
                        + " bytes, more than a compressed chunk of " + chunkBytes + " bytes can");
            }
            ByteBuffer b = ByteBuffer.allocate((int) n);
            while (b.hasRemaining()) {
                if (ch.read(b, offset + b.position()) < 0) {
                    throw new java.io.EOFException("the file ends at byte " + (offset + b.position()) + " inside the chunk");
                }
            }
            return b.array();
        }
    }

    /**
     * Writes block ({@code i}, {@code j}) of the chunk grid, {@code rows x cols} row-major values (fewer than a
     * chunk at the array's edges, where the chunk is padded with the fill value, as Zarr stores it).
     */
    public void writeChunk(int i, int j, int rows, int cols, double[] block) {
        int full = chunkRows * chunkCols;
        double[] padded = block;
        if (rows != chunkRows || cols != chunkCols) {
            padded = new double[full];
            if (fill != 0) {
                Arrays.fill(padded, fill);
            }
            for (int r = 0; r < rows; r++) {
                System.arraycopy(block, r * cols, padded, r * chunkCols, cols);
            }
        }
        byte[] raw = new byte[full * Double.BYTES];
        MemorySegment.copy(padded, 0, MemorySegment.ofArray(raw),
                java.lang.foreign.ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN), 0, full);
        Path file = chunkFile(i, j);
        Path tmp = file.resolveSibling("." + file.getFileName() + ".partial");
        try {
            Files.createDirectories(file.getParent());
            Files.write(tmp, compressor.compress(raw, Double.BYTES));
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new ArrayFileException(file, "writing chunk (" + i + ", " + j + ") failed: " + e, e);
        }
    }

    /** Writes {@code .zarray} (and an empty {@code .zattrs}): the step that makes the array visible. */
    public void writeMetadata() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("chunks", shape.ndim() == 1 ? List.of(chunkCols) : List.of(chunkRows, chunkCols));
        m.put("compressor", compressor.toMetadata());
        m.put("dtype", type.numpy());
        m.put("fill_value", fill);
        m.put("filters", null);
        m.put("order", fortran ? "F" : "C");
        m.put("shape", Arrays.stream(shape.dims()).boxed().toList());
        m.put("zarr_format", 2);
        Path d = Path.of(dir);
        try {
            Files.writeString(d.resolve(".zattrs"), "{}\n");
            Path tmp = d.resolve(".zarray.partial");
            Files.write(tmp, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(m));
            Files.move(tmp, d.resolve(".zarray"), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new ArrayFileException(d, "writing .zarray failed: " + e, e);
        }
    }
}
