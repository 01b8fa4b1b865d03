package io.dask4j.array.io;

import com.github.luben.zstd.Zstd;
import com.scalableminds.bloscjava.Blosc;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.Serializable;
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

    /** Decompresses one stored chunk, which must come out as {@code expectedBytes}. */
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
                case "zstd" -> Zstd.decompress(stored, expectedBytes);
                case "blosc" -> Blosc.decompress(stored);
                default -> throw new IllegalStateException("unknown compressor " + id);
            };
        }
        if (out.length != expectedBytes) {
            throw new IOException("a chunk decompressed to " + out.length + " bytes, expected " + expectedBytes);
        }
        return out;
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
