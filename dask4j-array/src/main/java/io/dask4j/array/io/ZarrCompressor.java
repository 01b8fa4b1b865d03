package io.dask4j.array.io;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdException;
import com.scalableminds.bloscjava.Blosc;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import java.util.zip.Inflater;

/**
 * The compressor of a Zarr v2 array's chunks, as its {@code .zarray} names it ({@code "compressor": null} or
 * {@code {"id": "blosc", ...}}): none, {@code zlib}, {@code gzip} (the JDK's), {@code zstd} (zstd-jni) or
 * {@code blosc} (blosc-java, the C library Python's numcodecs wraps). Immutable and serializable: it travels
 * in every read and write task.
 *
 * @param id      the numcodecs id, or {@code null} for uncompressed chunks
 * @param cname   blosc's inner compressor ({@code lz4}, {@code zstd}, ...), for blosc only
 * @param level   the compression level written (read needs none)
 * @param shuffle blosc's shuffle (0 none, 1 byte, 2 bit), for blosc only
 */
public record ZarrCompressor(String id, String cname, int level, int shuffle) implements Serializable {

    /** Uncompressed chunks: the fastest to read and write on a fast file system. */
    public static final ZarrCompressor NONE = new ZarrCompressor(null, null, 0, 0);

    /** A blosc buffer starts with 16 bytes: version, flags, type size, then uncompressed, block and compressed sizes. */
    private static final int BLOSC_HEADER_BYTES = 16;

    /** zstd at level 3 (numcodecs' Zstd default is 1; 3 is zstd's own). */
    public static ZarrCompressor zstd() {
        return new ZarrCompressor("zstd", null, 3, 0);
    }

    /** Python Zarr's default: blosc with lz4 at level 5 and byte shuffle. */
    public static ZarrCompressor blosc() {
        return new ZarrCompressor("blosc", "lz4", 5, 1);
    }

    /** gzip at level 5. */
    public static ZarrCompressor gzip() {
        return new ZarrCompressor("gzip", null, 5, 0);
    }

    /** zlib at level 5. */
    public static ZarrCompressor zlib() {
        return new ZarrCompressor("zlib", null, 5, 0);
    }

    /** The compressor a {@code .zarray}'s {@code compressor} object describes; unknown ids are refused. */
    static ZarrCompressor fromMetadata(Map<String, Object> config, java.nio.file.Path file) {
        if (config == null) {
            return NONE;
        }
        String id = String.valueOf(config.get("id"));
        int level = config.get("level") instanceof Number n ? n.intValue() : config.get("clevel") instanceof Number c ? c.intValue() : 0;
        return switch (id) {
            case "zlib", "gzip", "zstd" -> new ZarrCompressor(id, null, level, 0);
            case "blosc" -> new ZarrCompressor(id, String.valueOf(config.getOrDefault("cname", "lz4")), level,
                    config.get("shuffle") instanceof Number s ? s.intValue() : 1);
            default -> throw new ArrayFileException(file, "compressor '" + id
                    + "' is not supported (dask4j reads uncompressed, zlib, gzip, zstd and blosc chunks)");
        };
    }

    /** The {@code compressor} object of a {@code .zarray}, or {@code null}. */
    Map<String, Object> toMetadata() {
        if (id == null) {
            return null;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", id);
        if (id.equals("blosc")) {
            m.put("cname", cname);
            m.put("clevel", level);
            m.put("shuffle", shuffle);
            m.put("blocksize", 0);
        } else {
            m.put("level", level);
        }
        return m;
    }

    /**
     * The most bytes a stored chunk of {@code chunkBytes} may take: incompressible data grows a little under every
     * codec (zstd by 1/256 and a frame header, deflate by 5 bytes per 16 KiB block, blosc by its 16-byte header),
     * and an optional CRC-32C adds 4. A longer chunk file is refused before it is read, so no file, however large,
     * makes a worker allocate more than about its chunk's size.
     */
    static long maxStoredBytes(int chunkBytes) {
        return chunkBytes + chunkBytes / 8L + 4096;
    }

    /**
     * Decompresses one stored chunk, which must come out as {@code expectedBytes}. Never allocates more than that
     * (plus a byte): a chunk that would decompress to more, a decompression bomb included, fails as soon as it
     * passes its shape's size.
     */
    byte[] decompress(byte[] stored, int expectedBytes) throws IOException {
        byte[] out;
        if (id == null) {
            out = stored;
        } else {
            out = switch (id) {
                case "zlib" -> inflate(stored, expectedBytes);
                case "gzip" -> {
                    try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(stored))) {
                        yield in.readNBytes(expectedBytes + 1);
                    }
                }
                case "zstd" -> {
                    try {
                        yield Zstd.decompress(stored, expectedBytes);
                    } catch (ZstdException e) {
                        if (e.getErrorCode() == Zstd.errDstSizeTooSmall()) {
                            throw tooLong(expectedBytes);
                        }
                        throw e;
                    }
                }
                case "blosc" -> {
                    // blosc-java allocates what the header claims before decompressing: check the claim first.
                    if (stored.length < BLOSC_HEADER_BYTES) {
                        throw new java.io.EOFException("it holds " + stored.length + " bytes, too few for a blosc header");
                    }
                    long claimed = Integer.toUnsignedLong(ByteBuffer.wrap(stored, 4, 4).order(ByteOrder.LITTLE_ENDIAN).getInt());
                    if (claimed != expectedBytes) {
                        throw new IOException("its blosc header says it holds " + claimed + " bytes, not the "
                                + expectedBytes + " bytes of its shape");
                    }
                    yield Blosc.decompress(stored);
                }
                default -> throw new IllegalStateException("unknown compressor " + id);
            };
        }
        if (out.length > expectedBytes) {
            throw tooLong(expectedBytes);
        }
        if (out.length != expectedBytes) {
            throw new IOException("a chunk decompressed to " + out.length + " bytes, expected " + expectedBytes);
        }
        return out;
    }

    private static IOException tooLong(int expectedBytes) {
        return new IOException("it decompresses to more than the " + expectedBytes + " bytes of its shape");
    }

    /** Compresses one chunk of elements of {@code typeSize} bytes. */
    byte[] compress(byte[] raw, int typeSize) throws IOException {
        if (id == null) {
            return raw;
        }
        return switch (id) {
            case "zlib" -> deflate(raw);
            case "gzip" -> {
                ByteArrayOutputStream bytes = new ByteArrayOutputStream(raw.length / 2 + 64);
                try (GZIPOutputStream out = new GZIPOutputStream(bytes)) {
                    out.write(raw);
                }
                yield bytes.toByteArray();
            }
            case "zstd" -> Zstd.compress(raw, level);
            case "blosc" -> Blosc.compress(raw, typeSize, Blosc.Compressor.fromString(cname), level, Blosc.Shuffle.fromInt(shuffle));
            default -> throw new IllegalStateException("unknown compressor " + id);
        };
    }

    private static byte[] inflate(byte[] stored, int expectedBytes) throws IOException {
        Inflater inflater = new Inflater();
        try {
            inflater.setInput(stored);
            byte[] out = new byte[expectedBytes];
            int n = 0;
            while (n < expectedBytes && !inflater.finished()) {
                int got = inflater.inflate(out, n, expectedBytes - n);
                if (got == 0 && (inflater.needsInput() || inflater.needsDictionary())) {
                    break;
                }
                n += got;
            }
            if (n == expectedBytes && !inflater.finished() && inflater.inflate(new byte[1]) > 0) {
                throw tooLong(expectedBytes); // more data than the chunk holds: never silently cut off
            }
            return n == expectedBytes ? out : java.util.Arrays.copyOf(out, n);
        } catch (DataFormatException e) {
            throw new IOException("corrupt zlib chunk: " + e.getMessage(), e);
        } finally {
            inflater.end();
        }
    }

    private byte[] deflate(byte[] raw) {
        Deflater deflater = new Deflater(level);
        try {
            deflater.setInput(raw);
            deflater.finish();
            ByteArrayOutputStream out = new ByteArrayOutputStream(raw.length / 2 + 64);
            byte[] buf = new byte[64 << 10];
            while (!deflater.finished()) {
                out.write(buf, 0, deflater.deflate(buf));
            }
            return out.toByteArray();
        } finally {
            deflater.end();
        }
    }
}
