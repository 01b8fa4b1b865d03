package io.dask4j.array.io;

import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * Moves runs of elements between a file and {@code double[]}s: short runs through one reused direct buffer
 * per thread (a block costs its system calls and no garbage), long runs through a mapping of the file. Readers and writers of every format use
 * it on worker task threads; the buffer belongs to the calling thread.
 */
final class ByteRuns {
    /** Big enough that a run costs few system calls, small enough to stay in cache while it is converted. */
    static final int BUFFER_BYTES = 1 << 20;
    /** Runs at least this long are mapped rather than read through the buffer (see {@link #readMapped}). */
    static final long MAP_AT_LEAST_BYTES = 4L << 20;
    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    /** A thread's buffer, and a segment over all of it (made once: a segment of a buffer covers only its remaining bytes). */
    private record Scratch(ByteBuffer buf, MemorySegment seg) {
        Scratch(ByteBuffer buf) {
            this(buf, MemorySegment.ofBuffer(buf));
        }

        Scratch() {
            this(ByteBuffer.allocateDirect(BUFFER_BYTES).order(ByteOrder.LITTLE_ENDIAN));
        }
    }

    private ByteRuns() {
    }

    /**
     * Reads {@code count} elements of {@code type} starting at byte {@code position} of {@code channel} into
     * {@code dst[dstIndex ...]}, as doubles.
     *
     * @throws EOFException if the file ends first
     */
    static void read(FileChannel channel, long position, ElementType type, double[] dst, int dstIndex, int count)
            throws IOException {
        if ((long) count * type.bytes() >= MAP_AT_LEAST_BYTES) {
            readMapped(channel, position, type, dst, dstIndex, count);
            return;
        }
        Scratch scratch = SCRATCH.get();
        ByteBuffer buf = scratch.buf();
        MemorySegment seg = scratch.seg();
        int per = BUFFER_BYTES / type.bytes();
        int done = 0;
        while (done < count) {
            int n = Math.min(per, count - done);
            int bytes = n * type.bytes();
            buf.clear().limit(bytes);
            long at = position + (long) done * type.bytes();
            while (buf.hasRemaining()) {
                int got = channel.read(buf, at + buf.position());
                if (got < 0) {
                    throw new EOFException("the file ends at byte " + (at + buf.position()) + ", but element data runs to byte "
                            + (position + (long) count * type.bytes()));
                }
            }
            type.decode(seg, 0, dst, dstIndex + done, n);
            done += n;
        }
    }

    /**
     * A long run is mapped and converted straight from the page cache into the array: one copy instead of two
     * (the kernel's into the buffer, then ours), which made a 128 MiB block read about 30% faster here. The
     * file's length is checked first, since touching a mapping past the end of a file is a fault, not an error.
     */
    private static void readMapped(FileChannel channel, long position, ElementType type, double[] dst, int dstIndex, int count)
            throws IOException {
        long bytes = (long) count * type.bytes();
        long size = channel.size();
        if (size < position + bytes) {
            throw new EOFException("the file ends at byte " + size + ", but element data runs to byte " + (position + bytes));
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mapped = channel.map(FileChannel.MapMode.READ_ONLY, position, bytes, arena);
            type.decode(mapped, 0, dst, dstIndex, count);
        }
    }

    /**
     * Reads {@code rows} runs of {@code count} elements each, the first at byte {@code position} and each next one
     * {@code strideBytes} further (a block of a row-major array narrower than the array), into {@code dst}, run
     * {@code k} starting at {@code dst[dstIndex + k * dstStride]}. When the runs add up to a long read, the span
     * they lie in is mapped once and every run copied straight from the page cache (one copy, no system call per
     * run); the pages between runs are never touched, so only the block's own bytes are read.
     *
     * @throws EOFException if the file ends first
     */
    static void readRuns(FileChannel channel, long position, long strideBytes, ElementType type, int rows, int count,
                         double[] dst, int dstIndex, int dstStride) throws IOException {
        long runBytes = (long) count * type.bytes();
        if (rows <= 1 || runBytes * rows < MAP_AT_LEAST_BYTES) {
            for (int k = 0; k < rows; k++) {
                read(channel, position + k * strideBytes, type, dst, dstIndex + k * dstStride, count);
            }
            return;
        }
        long span = (rows - 1) * strideBytes + runBytes;
        long size = channel.size();
        if (size < position + span) {
            throw new EOFException("the file ends at byte " + size + ", but element data runs to byte " + (position + span));
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mapped = channel.map(FileChannel.MapMode.READ_ONLY, position, span, arena);
            for (int k = 0; k < rows; k++) {
                type.decode(mapped, k * strideBytes, dst, dstIndex + k * dstStride, count);
            }
        }
    }

    /** Writes {@code count} doubles from {@code src[srcIndex ...]} as little-endian float64 at byte {@code position}. */
    static void write(FileChannel channel, long position, double[] src, int srcIndex, int count) throws IOException {
        Scratch scratch = SCRATCH.get();
        ByteBuffer buf = scratch.buf();
        MemorySegment seg = scratch.seg();
        int per = BUFFER_BYTES / Double.BYTES;
        int done = 0;
        while (done < count) {
            int n = Math.min(per, count - done);
            MemorySegment.copy(src, srcIndex + done, seg, ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 0, n);
            buf.clear().limit(n * Double.BYTES);
            long at = position + (long) done * Double.BYTES;
            while (buf.hasRemaining()) {
                channel.write(buf, at + buf.position());
            }
            done += n;
        }
    }

    /** The error for a failed read or write of {@code file}, naming it and what went wrong. */
    static ArrayFileException failure(Path file, String what, IOException e) {
        if (e instanceof java.nio.file.NoSuchFileException) {
            return new ArrayFileException(file, "no such file", e);
        }
        if (e instanceof EOFException) {
            return new ArrayFileException(file, "truncated: " + e.getMessage(), e);
        }
        return new ArrayFileException(file, what + " failed: " + e, e);
    }
}
