package io.dask4j.comm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * One binary frame of a {@link Message}: a view of bytes, on-heap or off-heap, up to
 * {@code Long.MAX_VALUE} bytes in principle and at least 2 GiB in practice.
 *
 * <p>Frames are how array data travels without a serializer: {@link #of(double[])} wraps the array
 * itself (no copy), and the receiving side gets the bytes as a segment it can view as doubles. A frame
 * does not own its memory; whoever built it keeps it alive until the write that carries it returns.
 * Received frames belong to the reader. Frames are immutable views; do not modify the underlying memory
 * while a write is in flight. Byte order of numeric frames is little-endian on the wire.
 */
public record Frame(MemorySegment segment) {

    public static final Frame EMPTY = new Frame(MemorySegment.ofArray(new byte[0]));

    static final ValueLayout.OfDouble DOUBLE_LE = ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfLong LONG_LE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    public Frame {
        Objects.requireNonNull(segment, "segment");
    }

    public static Frame of(byte[] bytes) {
        return new Frame(MemorySegment.ofArray(bytes));
    }

    /** Wraps the remaining bytes of {@code buffer} without copying (heap or direct). */
    public static Frame of(ByteBuffer buffer) {
        return new Frame(MemorySegment.ofBuffer(buffer));
    }

    /** Wraps the array without copying; its bytes are the doubles in native (little-endian x86/ARM) order. */
    public static Frame of(double[] values) {
        return new Frame(MemorySegment.ofArray(values));
    }

    public static Frame of(long[] values) {
        return new Frame(MemorySegment.ofArray(values));
    }

    public static Frame of(MemorySegment segment) {
        return new Frame(segment);
    }

    public long size() {
        return segment.byteSize();
    }

    public byte[] toByteArray() {
        return segment.toArray(ValueLayout.JAVA_BYTE);
    }

    /** Copies the bytes into a new double[]; throws ProtocolException if the size is not a multiple of 8. */
    public double[] toDoubleArray() {
        checkMultipleOf(Double.BYTES);
        if (segment.isNative() || !(segment.heapBase().orElse(null) instanceof double[] d) || d.length * 8L != size()) {
            return segment.toArray(DOUBLE_LE);
        }
        return d;
    }

    public long[] toLongArray() {
        checkMultipleOf(Long.BYTES);
        return segment.toArray(LONG_LE);
    }

    /** A ByteBuffer view of this frame (no copy); only for frames under 2 GiB. */
    public ByteBuffer asByteBuffer() {
        return segment.asByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
    }

    private void checkMultipleOf(int width) {
        if (size() % width != 0) {
            throw new ProtocolException("frame of " + size() + " bytes is not a whole number of " + width + "-byte values");
        }
    }

    @Override
    public String toString() {
        return "Frame[" + size() + " bytes" + (segment.isNative() ? ", native" : "") + "]";
    }
}
