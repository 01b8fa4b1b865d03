package io.dask4j.array.io;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An array stored as one run of elements in a file, from byte {@code offset} on, in C (row-major) or Fortran
 * (column-major) order: a raw binary file, the data of a {@code .npy} file, or a contiguous HDF5 dataset.
 * Reads any block with positional reads (a run per row, or per column in Fortran order; one run when the
 * block spans whole rows; a large block's rows straight from a mapping of the span they lie in); writes blocks of little-endian float64 in C order. Thread-safe and serializable.
 *
 * @param file    the file's path
 * @param offset  where the first element starts
 * @param shape   the array's shape
 * @param type    the stored element type
 * @param fortran whether the elements are in column-major order
 */
public record RawArray(String file, long offset, ArrayShape shape, ElementType type, boolean fortran) implements BlockReader {

    /** Bytes of element data (exact: a shape whose byte count overflows a long is refused, not wrapped around). */
    public long dataBytes() {
        return Math.multiplyExact(shape.size(), type.bytes());
    }

    /**
     * Checks that the file exists and holds all the element data: run on the client, so a truncated file is
     * refused before any task runs.
     */
    public RawArray checked() {
        Path p = Path.of(file);
        long size;
        try {
            size = Files.size(p);
        } catch (IOException e) {
            throw ByteRuns.failure(p, "reading its size", e);
        }
        long needed;
        try {
            needed = Math.addExact(offset, dataBytes());
        } catch (ArithmeticException e) {
            // (2^31 - 1)^2 float64 elements are 2^65 bytes: wrapped around, that would pass the check below.
            throw new ArrayFileException(p, "shape " + shape.numpy() + " of " + type.numpy() + " needs more bytes than a file can hold");
        }
        if (size < needed) {
            throw new ArrayFileException(p, "truncated: shape " + shape.numpy() + " of " + type.numpy() + " needs "
                    + needed + " bytes, the file has " + size);
        }
        return this;
    }

    @Override
    public int[] storageChunks() {
        return null;
    }

    @Override
    public double[] read(long r0, long c0, int rows, int cols) {
        double[] out = new double[Math.multiplyExact(rows, cols)];
        Path p = Path.of(file);
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
            readInto(ch, r0, c0, rows, cols, out, 0, cols);
        } catch (IOException e) {
            throw ByteRuns.failure(p, "reading", e);
        }
        return out;
    }

    /**
     * Reads the block at ({@code r0}, {@code c0}) of {@code rows x cols} from the open {@code channel} into {@code
     * out}, row {@code r} of the block starting at {@code out[outIndex + r * outStride]}.
     */
    void readInto(FileChannel channel, long r0, long c0, int rows, int cols, double[] out, int outIndex, int outStride)
            throws IOException {
        int s = type.bytes();
        if (!fortran && outStride == cols && (cols == shape.cols() || rows == 1)) {
            ByteRuns.read(channel, offset + (r0 * shape.cols() + c0) * s, type, out, outIndex, rows * cols);
        } else if (!fortran) {
            ByteRuns.readRuns(channel, offset + (r0 * shape.cols() + c0) * s, shape.cols() * s, type, rows, cols, out, outIndex, outStride);
        } else {
            double[] column = new double[rows];
            for (int c = 0; c < cols; c++) {
                ByteRuns.read(channel, offset + ((c0 + c) * shape.rows() + r0) * s, type, column, 0, rows);
                for (int r = 0; r < rows; r++) {
                    out[outIndex + r * outStride + c] = column[r];
                }
            }
        }
    }

    /**
     * Writes a row-major block at row {@code r0}, column {@code c0} into the file, which must already be as
     * long as the array (see {@link #createFile}). Only little-endian float64 in C order is written.
     */
    public void write(long r0, long c0, int rows, int cols, double[] block) {
        if (fortran || !type.equals(ElementType.FLOAT64_LE)) {
            throw new IllegalStateException("dask4j writes little-endian float64 in C order, not " + type.numpy()
                    + (fortran ? " in Fortran order" : ""));
        }
        Path p = Path.of(file);
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE)) {
            if (cols == shape.cols() || rows == 1) {
                ByteRuns.write(ch, offset + (r0 * shape.cols() + c0) * Double.BYTES, block, 0, block.length);
            } else {
                for (int r = 0; r < rows; r++) {
                    ByteRuns.write(ch, offset + ((r0 + r) * shape.cols() + c0) * Double.BYTES, block, r * cols, cols);
                }
            }
        } catch (IOException e) {
            throw ByteRuns.failure(p, "writing", e);
        }
    }

    /** Creates (or truncates) the file with {@code header} followed by room for all the element data. */
    public void createFile(byte[] header) {
        Path p = Path.of(file);
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE)) {
            ch.write(java.nio.ByteBuffer.wrap(header), 0);
            if (dataBytes() > 0) {
                // Extends the file sparsely: the workers fill the data in place.
                ch.write(java.nio.ByteBuffer.wrap(new byte[1]), offset + dataBytes() - 1);
            }
        } catch (IOException e) {
            throw ByteRuns.failure(p, "creating", e);
        }
    }
}
