package io.dask4j.array.io;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Reads the {@code zarr.json} of a Zarr v3 array into a {@link ZarrArray}, which then reads its chunks as it
 * reads v2's: v3 keeps v2's chunk layout (whole chunks, edge chunks padded, one file per chunk) and changes the
 * metadata and the chunk names ({@code c/i/j} by default). Read: a regular chunk grid, the {@code default} and
 * {@code v2} chunk key encodings, the {@code bytes} codec in either endianness, an optional {@code transpose}
 * (Fortran order) before it and at most one of {@code gzip}, {@code zstd} and {@code blosc} after it; the same
 * codecs as the inner codecs of {@code sharding_indexed} (see {@link ZarrShards}), whose index may carry a
 * CRC-32C, and nested sharding (a {@code sharding_indexed} whose only inner codec is another); a {@code crc32c}
 * last among a chunk's codecs (each chunk's checksum, checked as it is read). Refused, by name: other codecs
 * (and {@code sharding_indexed} beside other codecs), other grids, data types other than the numeric ones dask4j
 * reads.
 * Stateless; called on the thread that creates the array.
 */
final class ZarrV3 {
    private ZarrV3() {
    }

    @SuppressWarnings("unchecked")
    static ZarrArray open(Path dir) {
        Map<String, Object> m = ZarrArray.metadata(dir, "zarr.json");
        if (!Integer.valueOf(3).equals(m.get("zarr_format"))) {
            throw new ArrayFileException(dir, "zarr.json has zarr_format " + m.get("zarr_format") + " (3 expected)");
        }
        if (!"array".equals(m.get("node_type"))) {
            throw new ArrayFileException(dir, "is a Zarr " + m.get("node_type") + ", not an array");
        }
        long[] dims = ZarrArray.longs(m.get("shape"), "shape", dir);
        ArrayShape shape = ArrayShape.of(dims, dir);
        long[] chunks = chunkShape(m.get("chunk_grid"), dims.length, dir);
        int chunkRows = dims.length == 1 ? 1 : (int) chunks[0];
        int chunkCols = (int) chunks[dims.length - 1];
        String[] key = chunkKeys(m.get("chunk_key_encoding"), dir);

        ElementType type = dataType(m.get("data_type"), dir);
        if (!(m.get("codecs") instanceof List<?> codecs)) {
            throw new ArrayFileException(dir, "codecs " + m.get("codecs") + " is not a list");
        }
        // Each sharding_indexed whose chunks are themselves sharded adds a level; its chunks' codecs end the chain.
        List<Map<String, Object>> levels = new ArrayList<>();
        List<int[]> levelShapes = new ArrayList<>();
        while (codecs.size() == 1 && codecs.getFirst() instanceof Map<?, ?> only && "sharding_indexed".equals(only.get("name"))) {
            Map<String, Object> conf = only.get("configuration") instanceof Map<?, ?> cm ? (Map<String, Object>) cm : Map.of();
            long[] inner = ZarrArray.longs(conf.get("chunk_shape"), "sharding_indexed chunk_shape", dir);
            long[] outer = dims.length == 1 ? new long[]{chunkCols} : new long[]{chunkRows, chunkCols};
            if (inner.length != dims.length || Arrays.stream(inner).anyMatch(c -> c <= 0)
                    || (dims.length == 2 && chunkRows % inner[0] != 0) || chunkCols % inner[dims.length - 1] != 0) {
                throw new ArrayFileException(dir, "sharding_indexed chunk_shape " + Arrays.toString(inner)
                        + " does not divide the shard shape " + Arrays.toString(outer));
            }
            long perShard = (dims.length == 1 ? 1 : chunkRows / inner[0]) * (chunkCols / inner[dims.length - 1]);
            if (perShard > ZarrShards.MAX_CHUNKS) {
                throw new ArrayFileException(dir, "sharding_indexed: a shard of " + Arrays.toString(outer) + " holds " + perShard
                        + " chunks of " + Arrays.toString(inner) + ", more than an index can list (" + ZarrShards.MAX_CHUNKS + ")");
            }
            levels.add(conf);
            levelShapes.add(new int[]{chunkRows, chunkCols});
            chunkRows = dims.length == 1 ? 1 : (int) inner[0];
            chunkCols = (int) inner[dims.length - 1];
            if (!(conf.get("codecs") instanceof List<?> innerCodecs)) {
                throw new ArrayFileException(dir, "sharding_indexed codecs " + conf.get("codecs") + " is not a list");
            }
            codecs = innerCodecs;
        }
        ZarrShards shards = null;
        for (int k = levels.size() - 1; k >= 0; k--) {
            shards = shards(levels.get(k), levelShapes.get(k)[0], levelShapes.get(k)[1], shards, dir);
        }
        Codecs c = codecs(codecs, type, dims.length, dir);
        if ((long) chunkRows * chunkCols * c.type().bytes() > Integer.MAX_VALUE - 8) {
            throw new ArrayFileException(dir, "chunks " + Arrays.toString(chunks) + " are larger than 2 GiB");
        }
        return new ZarrArray(dir.toString(), shape, chunkRows, chunkCols, c.type(), c.fortran(), c.compressor(),
                ZarrArray.fillValue(m.get("fill_value"), dir), key[1], key[0], shards, c.checksummed());
    }

    /**
     * What a chunk's codecs amount to: the stored element type, the order within a chunk, the compressor, and
     * whether a CRC-32C ends each stored chunk.
     */
    private record Codecs(ElementType type, boolean fortran, ZarrCompressor compressor, boolean checksummed) {
    }

    @SuppressWarnings("unchecked")
    private static Codecs codecs(List<?> codecs, ElementType type, int ndim, Path dir) {
        boolean fortran = false;
        boolean bytesSeen = false;
        boolean checksummed = false;
        ZarrCompressor compressor = ZarrCompressor.NONE;
        for (Object c : codecs) {
            Map<String, Object> codec = c instanceof Map<?, ?> cm ? (Map<String, Object>) cm : Map.of("name", String.valueOf(c));
            String name = String.valueOf(codec.get("name"));
            if (checksummed) {
                throw new ArrayFileException(dir, "codecs " + codecs + " are not supported (crc32c must be the last codec)");
            }
            Map<String, Object> conf = codec.get("configuration") instanceof Map<?, ?> cm ? (Map<String, Object>) cm : Map.of();
            switch (name) {
                case "transpose" -> {
                    if (bytesSeen || !transposeIsFortran(conf.get("order"), ndim)) {
                        throw new ArrayFileException(dir, "transpose " + conf.get("order") + " is not supported (only a reversal of the axes before the bytes codec)");
                    }
                    fortran = ndim == 2;
                }
                case "bytes" -> {
                    bytesSeen = true;
                    if ("big".equals(conf.get("endian"))) {
                        type = new ElementType(type.kind(), type.bytes(), true);
                    }
                }
                case "gzip", "zstd", "blosc" -> {
                    if (!bytesSeen || compressor != ZarrCompressor.NONE) {
                        throw new ArrayFileException(dir, "codecs " + codecs + " are not supported (one compressor after bytes is)");
                    }
                    compressor = compressor(name, conf);
                }
                case "crc32c" -> {
                    if (!bytesSeen) {
                        throw new ArrayFileException(dir, "codecs " + codecs + " are not supported (crc32c comes after bytes)");
                    }
                    checksummed = true;
                }
                default -> throw new ArrayFileException(dir, "codec '" + name
                        + "' is not supported (dask4j reads Zarr v3 chunks with transpose, bytes, gzip, zstd, blosc and crc32c, "
                        + "alone or as the inner codecs of sharding_indexed)");
            }
        }
        if (!bytesSeen) {
            throw new ArrayFileException(dir, "codecs " + codecs + " have no bytes codec");
        }
        return new Codecs(type, fortran, compressor, checksummed);
    }

    /**
     * One level of sharding: the index's layout ({@code bytes} in either endianness, optionally then
     * {@code crc32c}), and {@code nested}, the layout of its chunks when they are shards too.
     */
    private static ZarrShards shards(Map<String, Object> conf, int rows, int cols, ZarrShards nested, Path dir) {
        Object location = conf.getOrDefault("index_location", "end");
        if (!"end".equals(location) && !"start".equals(location)) {
            throw new ArrayFileException(dir, "sharding_indexed index_location " + location + " is neither start nor end");
        }
        List<?> indexCodecs = conf.get("index_codecs") instanceof List<?> l ? l : List.of(Map.of("name", "bytes"));
        List<String> names = indexCodecs.stream().map(x -> x instanceof Map<?, ?> xm ? String.valueOf(xm.get("name")) : String.valueOf(x)).toList();
        if (!names.equals(List.of("bytes")) && !names.equals(List.of("bytes", "crc32c"))) {
            throw new ArrayFileException(dir, "sharding_indexed index_codecs " + names + " are not supported (bytes, then optionally crc32c, are)");
        }
        boolean big = indexCodecs.getFirst() instanceof Map<?, ?> b && b.get("configuration") instanceof Map<?, ?> bc
                && "big".equals(bc.get("endian"));
        return new ZarrShards(rows, cols, "end".equals(location), big, names.size() == 2, nested);
    }

    @SuppressWarnings("unchecked")
    private static long[] chunkShape(Object grid, int ndim, Path dir) {
        if (!(grid instanceof Map<?, ?> g) || !"regular".equals(g.get("name")) || !(g.get("configuration") instanceof Map<?, ?> conf)) {
            throw new ArrayFileException(dir, "chunk_grid " + grid + " is not supported (a regular grid is)");
        }
        long[] chunks = ZarrArray.longs(((Map<String, Object>) conf).get("chunk_shape"), "chunk_shape", dir);
        if (chunks.length != ndim || Arrays.stream(chunks).anyMatch(c -> c <= 0 || c > Integer.MAX_VALUE)) {
            throw new ArrayFileException(dir, "chunk_shape " + Arrays.toString(chunks) + " does not fit " + ndim + " dimensions");
        }
        return chunks;
    }

    /** {@code {prefix, separator}} of the chunk files' names. */
    private static String[] chunkKeys(Object encoding, Path dir) {
        if (encoding == null) {
            return new String[]{"c/", "/"};
        }
        if (!(encoding instanceof Map<?, ?> e)) {
            throw new ArrayFileException(dir, "chunk_key_encoding " + encoding + " is not an object");
        }
        Object sep = e.get("configuration") instanceof Map<?, ?> conf ? conf.get("separator") : null;
        return switch (String.valueOf(e.get("name"))) {
            case "default" -> {
                String s = ZarrArray.separator("chunk_key_encoding separator", sep == null ? "/" : sep, dir);
                yield new String[]{"c" + s, s};
            }
            case "v2" -> new String[]{"", ZarrArray.separator("chunk_key_encoding separator", sep == null ? "." : sep, dir)};
            default -> throw new ArrayFileException(dir, "chunk_key_encoding " + e.get("name") + " is not supported (default and v2 are)");
        };
    }

    private static ElementType dataType(Object dataType, Path dir) {
        String name = String.valueOf(dataType);
        if (!name.matches("float(32|64)|u?int(8|16|32|64)")) {
            throw new ArrayFileException(dir, "data_type " + dataType
                    + " is not supported (dask4j reads float32/64 and signed or unsigned 8- to 64-bit integers)");
        }
        return ElementType.named(name);
    }

    private static boolean transposeIsFortran(Object order, int ndim) {
        return order instanceof List<?> l && l.size() == ndim
                && (ndim == 1 ? l.equals(List.of(0)) : l.equals(List.of(1, 0)));
    }

    private static ZarrCompressor compressor(String name, Map<String, Object> conf) {
        int level = conf.get("level") instanceof Number n ? n.intValue() : conf.get("clevel") instanceof Number c ? c.intValue() : 0;
        if (!name.equals("blosc")) {
            return new ZarrCompressor(name, null, level, 0);
        }
        int shuffle = switch (String.valueOf(conf.getOrDefault("shuffle", "noshuffle"))) {
            case "shuffle" -> 1;
            case "bitshuffle" -> 2;
            default -> 0;
        };
        return new ZarrCompressor("blosc", String.valueOf(conf.getOrDefault("cname", "lz4")), level, shuffle);
    }
}
