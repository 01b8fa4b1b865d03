package io.dask4j.array.io;

import io.jhdf.HdfFile;
import io.jhdf.api.Dataset;
import io.jhdf.api.Node;
import io.jhdf.api.dataset.ChunkedDataset;
import io.jhdf.api.dataset.ContiguousDataset;
import io.jhdf.exceptions.HdfException;
import io.jhdf.filter.PipelineFilterWithData;
import io.jhdf.object.datatype.DataType;
import io.jhdf.object.datatype.FixedPoint;
import io.jhdf.object.datatype.FloatingPoint;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.Array;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * A dataset of an HDF5 file (as h5py, NetCDF-4 and HDF5's own tools write them), read through jhdf. A
 * contiguous dataset is one run of elements at a known address, so it is read like a raw file ({@link
 * RawArray}: positional reads of just the block); a chunked one (possibly compressed) a chunk at a time,
 * decompressed by jhdf (an uncompressed chunk is copied straight from jhdf's mapping of the file); a compact
 * one (a few KiB kept in the file's metadata) whole. A chunk that was never written (h5py and the HDF5 library
 * allocate a chunk only when data is written into it) reads as the dataset's fill value, as it does in h5py.
 * Immutable, thread-safe, serializable: each read task opens the file on its worker.
 *
 * @param file       the HDF5 file
 * @param dataset    the dataset's path in the file, e.g. {@code /group/data}
 * @param shape      the dataset's shape
 * @param type       its element type
 * @param chunks     the chunk shape of a chunked dataset, else {@code null}
 * @param contiguous the layout of a contiguous dataset, else {@code null}
 * @param fillValue  what an unwritten chunk's elements read as: the dataset's declared fill value, else 0
 */
public record Hdf5Array(String file, String dataset, ArrayShape shape, ElementType type, int[] chunks,
                        RawArray contiguous, double fillValue) implements BlockReader {

    /** HDF5's filter ids (H5Zpublic.h): deflate, as gzip compression, and the byte shuffle h5py puts before it. */
    private static final int DEFLATE = 1;
    private static final int SHUFFLE = 2;

    /** jhdf's message when a chunked dataset's index has no entry for a chunk: the chunk was never written. */
    private static final String NO_CHUNK = "No chunk with offset";

    /** Reads the dataset's metadata; a missing file or dataset, or an unsupported type, is refused here. */
    public static Hdf5Array open(Path file, String datasetPath) {
        if (!Files.isRegularFile(file)) {
            throw new ArrayFileException(file, "no such file");
        }
        try (Opened o = Opened.of(file)) {
            HdfFile h = o.hdf();
            Node node;
            try {
                node = h.getByPath(datasetPath);
            } catch (HdfException e) {
                throw new ArrayFileException(file, "has no dataset '" + datasetPath + "'", e);
            }
            if (!(node instanceof Dataset ds)) {
                throw new ArrayFileException(file, "'" + datasetPath + "' is a " + node.getType().toString().toLowerCase(java.util.Locale.ROOT)
                        + ", not a dataset");
            }
            if (ds.isScalar() || ds.isCompound() || ds.isVariableLength()) {
                throw new ArrayFileException(file, "dataset '" + datasetPath + "' is "
                        + (ds.isScalar() ? "a scalar" : ds.isCompound() ? "compound" : "variable-length") + "; a DArray reads numeric arrays");
            }
            ArrayShape shape = ArrayShape.of(ds.getDimensionsAsLong(), file);
            ElementType type = elementType(ds.getDataType(), file, datasetPath);
            if (ds instanceof ContiguousDataset c && ds.getFilters().isEmpty()) {
                // HDF5 addresses count from the superblock, which follows the user block if there is one.
                RawArray raw = new RawArray(file.toString(), h.getUserBlockSize() + c.getDataAddress(), shape, type, false);
                return new Hdf5Array(file.toString(), datasetPath, shape, type, null, raw.checked(), 0);
            }
            if (ds instanceof ChunkedDataset cd) {
                int[] ch = cd.getChunkDimensions();
                if (ch.length != shape.ndim() || Arrays.stream(ch).anyMatch(c -> c <= 0)) {
                    throw new ArrayFileException(file, "dataset '" + datasetPath + "' has chunks of " + Arrays.toString(ch)
                            + ", which do not fit its shape " + shape.numpy());
                }
                int[] chunks = shape.ndim() == 1 ? new int[]{1, ch[0]} : new int[]{ch[0], ch[1]};
                checkChunkIndex(file, cd, datasetPath);
                return new Hdf5Array(file.toString(), datasetPath, shape, type, chunks, null, fillValue(ds));
            }
            return new Hdf5Array(file.toString(), datasetPath, shape, type, null, null, 0);
        } catch (ArrayFileException e) {
            throw e;
        } catch (HdfException e) {
            throw new ArrayFileException(file, "is not a readable HDF5 file: " + e.getMessage(), e);
        } catch (RuntimeException | OutOfMemoryError e) {
            throw jhdfFailed(file, "is not a readable HDF5 file", e);
        }
    }

    /**
     * An HDF5 file open in jhdf through a channel that refuses mappings past the file's end ({@link
     * BoundedFileChannel}): a truncated chunk then fails its read instead of reading as zeros. Closing closes the
     * channel itself: jhdf's {@code close()} of a file opened from a channel closes the files of external links, then
     * fails logging the path it was never given, before it closes the channel.
     */
    private record Opened(HdfFile hdf, java.nio.channels.FileChannel channel) implements AutoCloseable {
        private static final String NO_PATH = "No backing file";

        static Opened of(Path file) {
            java.nio.channels.FileChannel ch;
            try {
                ch = BoundedFileChannel.open(file);
            } catch (IOException e) {
                throw ByteRuns.failure(file, "opening", e);
            }
            try {
                return new Opened(new HdfFile(ch), ch);
            } catch (RuntimeException | Error e) {
                closeQuietly(ch, e);
                throw e;
            }
        }

        @Override
        public void close() {
            try {
                hdf.close();
            } catch (HdfException e) {
                if (e.getMessage() == null || !e.getMessage().startsWith(NO_PATH)) {
                    closeQuietly(channel, e);
                    throw e;
                }
            }
            try {
                channel.close();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        private static void closeQuietly(java.nio.channels.FileChannel ch, Throwable failure) {
            try {
                ch.close();
            } catch (IOException suppressed) {
                failure.addSuppressed(suppressed);
            }
        }
    }

    /**
     * jhdf trusts the file: a damaged one makes it throw whatever its parsing hits (ArithmeticException,
     * IllegalStateException, IndexOutOfBoundsException, ...) or allocate a size read from the file until the heap
     * gives out (a failed allocation holds nothing, so the process goes on). Either way the file is the problem,
     * and the error says so by name.
     */
    private static ArrayFileException jhdfFailed(Path file, String what, Throwable e) {
        return new ArrayFileException(file, what + " (damaged?): jhdf failed with " + e, e);
    }

    /**
     * Refuses a chunk index whose chunks add up to more bytes than the file holds. jhdf reads a chunk that runs
     * past the end of the file into a buffer of the size the index claims (up to 2 GiB), before any check of ours
     * could see it; a damaged size is caught here instead, on the client at open and again on the worker before
     * it reads (the file may have changed in between).
     */
    private static void checkChunkIndex(Path file, ChunkedDataset ds, String datasetPath) {
        long fileBytes;
        try {
            fileBytes = Files.size(file);
        } catch (java.io.IOException e) {
            throw ByteRuns.failure(file, "reading its size", e);
        }
        long claimed = ds.getStorageInBytes();
        if (claimed > fileBytes) {
            throw new ArrayFileException(file, "dataset '" + datasetPath + "': its chunk index claims " + claimed
                    + " bytes of chunks, more than the file's " + fileBytes + " (the index is damaged or the file truncated)");
        }
    }

    /** The dataset's declared fill value (jhdf decodes it in the dataset's own type), else HDF5's default, 0. */
    private static double fillValue(Dataset ds) {
        Object v = ds.getFillValue();
        if (v != null && v.getClass().isArray() && Array.getLength(v) == 1) {
            v = Array.get(v, 0);
        }
        return v instanceof Number n ? n.doubleValue() : 0;
    }

    private static ElementType elementType(DataType t, Path file, String dataset) {
        if (t instanceof FloatingPoint f && (f.getSize() == 4 || f.getSize() == 8)) {
            return new ElementType(ElementType.Kind.FLOAT, f.getSize(), f.getByteOrder() == java.nio.ByteOrder.BIG_ENDIAN);
        }
        if (t instanceof FixedPoint x && Arrays.asList(1, 2, 4, 8).contains(x.getSize())) {
            return new ElementType(x.isSigned() ? ElementType.Kind.INT : ElementType.Kind.UINT, x.getSize(), x.getByteOrder() == java.nio.ByteOrder.BIG_ENDIAN);
        }
        throw new ArrayFileException(file, "dataset '" + dataset + "' has element type " + t.getClass().getSimpleName()
                + " of " + t.getSize() + " bytes; dask4j reads float32/64 and 8- to 64-bit integers");
    }

    @Override
    public int[] storageChunks() {
        return chunks == null ? null : chunks.clone();
    }

    @Override
    public double[] read(long r0, long c0, int rows, int cols) {
        if (contiguous != null) {
            return contiguous.read(r0, c0, rows, cols);
        }
        Path p = Path.of(file);
        try (Opened o = Opened.of(p)) {
            HdfFile h = o.hdf();
            Dataset ds = h.getDatasetByPath(dataset);
            if (chunks != null) {
                checkChunkIndex(p, (ChunkedDataset) ds, dataset);
            }
            return chunks != null ? readChunked(p, (ChunkedDataset) ds, r0, c0, rows, cols) : readWhole(ds, r0, c0, rows, cols);
        } catch (ArrayFileException e) {
            throw e;
        } catch (HdfException e) {
            throw new ArrayFileException(p, "reading dataset '" + dataset + "' failed: " + e.getMessage(), e);
        } catch (RuntimeException | OutOfMemoryError e) {
            throw jhdfFailed(p, "reading dataset '" + dataset + "' failed", e);
        }
    }

    private double[] readChunked(Path p, ChunkedDataset ds, long r0, long c0, int rows, int cols) {
        double[] out = new double[Math.multiplyExact(rows, cols)];
        int cr = chunks[0];
        int cc = chunks[1];
        // An unfiltered chunk is read straight from jhdf's mapping of the file: one copy, from the page cache
        // into the block, instead of a second one through a byte[] per chunk.
        boolean unfiltered = ds.getFilters().isEmpty();
        List<Integer> filters = ds.getFilters().stream().map(PipelineFilterWithData::getId).toList();
        boolean deflated = filters.equals(List.of(DEFLATE)) || filters.equals(List.of(SHUFFLE, DEFLATE));
        for (long i = r0 / cr; i <= (r0 + rows - 1) / cr && rows > 0; i++) {
            long top = Math.max(r0, i * cr);
            long bottom = Math.min(r0 + rows, (i + 1) * cr);
            for (long j = c0 / cc; j <= (c0 + cols - 1) / cc && cols > 0; j++) {
                long left = Math.max(c0, j * cc);
                long right = Math.min(c0 + cols, (j + 1) * cc);
                int[] offset = shape.ndim() == 1 ? new int[]{(int) (j * cc)} : new int[]{(int) (i * cr), (int) (j * cc)};
                long chunkBytes = (long) cr * cc * type.bytes();
                MemorySegment chunk = deflated ? inflated(p, ds, offset, chunkBytes, filters.size() == 2)
                        : chunk(ds, offset, unfiltered);
                if (chunk != null && chunk.byteSize() != chunkBytes) {
                    // Every stored chunk is whole (edge chunks padded): another size is a damaged index or filter.
                    throw new ArrayFileException(p, "dataset '" + dataset + "': chunk at " + Arrays.toString(offset) + " holds "
                            + chunk.byteSize() + " bytes, a chunk of " + cr + " x " + cc + " holds " + chunkBytes);
                }
                for (long r = top; r < bottom; r++) {
                    int to = (int) ((r - r0) * cols + (left - c0));
                    if (chunk == null) {
                        Arrays.fill(out, to, to + (int) (right - left), fillValue);
                        continue;
                    }
                    long at = ((r - i * cr) * cc + (left - j * cc)) * type.bytes();
                    type.decode(chunk, at, out, to, (int) (right - left));
                }
            }
        }
        return out;
    }

    /**
     * A gzip chunk (h5py's {@code compression='gzip'}, NetCDF-4's deflate, optionally after a shuffle), or {@code
     * null} if it was never written, inflated here rather than by jhdf: jhdf inflates a chunk to whatever length
     * its stream has, so 16 KiB of zeros would fill 16 MiB before anyone checked them against the chunk's shape.
     * This never allocates more than the stored bytes and the chunk.
     */
    private MemorySegment inflated(Path p, ChunkedDataset ds, int[] offset, long chunkBytes, boolean shuffled) {
        MemorySegment stored = chunk(ds, offset, true);
        if (stored == null) {
            return null;
        }
        try {
            if (chunkBytes > Integer.MAX_VALUE - 8) {
                throw new IOException("a chunk of " + chunkBytes + " bytes is more than a Java array holds");
            }
            if (stored.byteSize() > ZarrCompressor.maxStoredBytes((int) chunkBytes)) {
                throw new IOException("it holds " + stored.byteSize() + " bytes, more than a compressed chunk of " + chunkBytes + " bytes can");
            }
            byte[] raw = ZarrCompressor.zlib().decompress(stored.toArray(ValueLayout.JAVA_BYTE), (int) chunkBytes);
            return MemorySegment.ofArray(shuffled ? unshuffle(raw, type.bytes()) : raw);
        } catch (IOException e) {
            throw new ArrayFileException(p, "dataset '" + dataset + "': chunk at " + Arrays.toString(offset) + " is unreadable: "
                    + e.getMessage(), e);
        }
    }

    /** Undoes HDF5's shuffle filter: byte {@code k} of every element was stored together, then byte {@code k + 1}. */
    private static byte[] unshuffle(byte[] shuffled, int size) {
        int n = shuffled.length / size;
        byte[] out = new byte[shuffled.length];
        for (int k = 0; k < size; k++) {
            for (int i = 0; i < n; i++) {
                out[i * size + k] = shuffled[k * n + i];
            }
        }
        return out;
    }

    /** The chunk at {@code offset}, or {@code null} if it was never written (jhdf exposes no lookup for that). */
    private static MemorySegment chunk(ChunkedDataset ds, int[] offset, boolean unfiltered) {
        try {
            return unfiltered ? MemorySegment.ofBuffer(ds.getRawChunkBuffer(offset))
                    : MemorySegment.ofArray(ds.getDecompressedChunk(offset));
        } catch (HdfException e) {
            if (e.getMessage() != null && e.getMessage().startsWith(NO_CHUNK)) {
                return null;
            }
            throw e;
        }
    }

    /** A compact dataset: small enough that jhdf reads it whole, then the block is cut out. */
    private double[] readWhole(Dataset ds, long r0, long c0, int rows, int cols) {
        Object flat = ds.getDataFlat();
        double[] out = new double[Math.multiplyExact(rows, cols)];
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                out[r * cols + c] = ((Number) Array.get(flat, (int) ((r0 + r) * shape.cols() + c0 + c))).doubleValue();
            }
        }
        return out;
    }
}
