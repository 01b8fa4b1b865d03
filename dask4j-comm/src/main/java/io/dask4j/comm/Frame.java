package io.dask4j.comm;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
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
 *
 * <p><b>Where a received frame lands.</b> A frame arrives in the kind of memory it was sent from: a
 * {@code double[]}, {@code long[]} or {@code byte[]} frame as a heap array of that type, an off-heap
 * frame as off-heap memory on transports that can receive into it (mpi, for frames of at least {@code
 * dask4j.mpi.pooledFrameBytes}) and as a {@code byte[]} elsewhere.
 *
 * <p><b>Releasing.</b> A transport may receive a frame into pooled memory it wants back: then the frame
 * is {@linkplain #isReleasable() releasable}, and the reader gives the memory back with {@link #release()}
 * (or {@link Message#release()}) as soon as it no longer needs it, typically right after decoding it or
 * after writing the message on (a write returns only when the transport no longer reads the frame). After
 * release, any access to the frame's segment (or to slices of it) fails with an {@link
 * IllegalStateException}; it never shows bytes of a later message. Releasing is optional: a releasable
 * frame that is simply dropped returns to its pool once the GC finds it unreachable, later and less
 * predictably. {@code release()} is idempotent and a no-op for frames that are not releasable (frames the
 * user built, and whatever inproc and tcp deliver). Call it from the thread that owns the message (the
 * reader, or whoever it handed the message to), once no other thread uses the frame.
 */
public final class Frame {

    public static final Frame EMPTY = new Frame(MemorySegment.ofArray(new byte[0]));

    static final ValueLayout.OfDouble DOUBLE_LE = ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfLong LONG_LE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private static final VarHandle RELEASED;

    static {
        try {
            RELEASED = MethodHandles.lookup().findVarHandle(Frame.class, "released", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final MemorySegment segment;
    /** Gives the memory back to the transport that received it; null for frames that are not releasable. */
    private final Runnable releaser;
    @SuppressWarnings("unused") // through RELEASED
    private volatile boolean released;

    public Frame(MemorySegment segment) {
        this(segment, null);
    }

    private Frame(MemorySegment segment, Runnable releaser) {
        this.segment = Objects.requireNonNull(segment, "segment");
        this.releaser = releaser;
    }

    /**
     * For transports: a received frame whose memory {@code releaser} gives back. The releaser runs at most
     * once, on the thread calling {@link #release()}; it must make {@code segment} (and its slices)
     * inaccessible before the memory is reused, and it may throw {@link IllegalStateException} if the
     * memory is still in use (the frame then stays unreleased).
     */
    public static Frame releasable(MemorySegment segment, Runnable releaser) {
        return new Frame(segment, Objects.requireNonNull(releaser, "releaser"));
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

    /** The frame's bytes; after {@link #release()} of a releasable frame, accessing them throws. */
    public MemorySegment segment() {
        return segment;
    }

    /** Whether the frame's memory belongs to a transport that wants it back (see {@link #release()}). */
    public boolean isReleasable() {
        return releaser != null;
    }

    /** Whether {@link #release()} has given this frame's memory back. */
    public boolean isReleased() {
        return released;
    }

    /**
     * Gives a received frame's memory back to its transport; idempotent, and a no-op for frames that are
     * not {@linkplain #isReleasable() releasable}. Afterwards the segment cannot be accessed.
     *
     * @throws IllegalStateException if the memory is still in use (e.g. by a native call of another thread);
     *     the frame then stays unreleased
     */
    public void release() {
        if (releaser == null || !RELEASED.compareAndSet(this, false, true)) {
            return;
        }
        try {
            releaser.run();
        } catch (RuntimeException e) {
            released = false;
            throw e;
        }
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

    /** Frames are equal when their segments are (same memory, offset and size), as when Frame was a record. */
    @Override
    public boolean equals(Object o) {
        return o instanceof Frame f && segment.equals(f.segment);
    }

    @Override
    public int hashCode() {
        return segment.hashCode();
    }

    @Override
    public String toString() {
        return "Frame[" + size() + " bytes" + (segment.isNative() ? ", native" : "")
                + (releaser == null ? "" : released ? ", released" : ", releasable") + "]";
    }
}
