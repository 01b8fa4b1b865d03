package io.dask4j.comm.serialize;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.util.Pool;
import io.dask4j.comm.Frame;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Decodes what {@link Serialization#encode} made, possibly in another process, building only classes its
 * {@link ClassAllowList} allows: a frame naming any other class fails with {@link ClassNotAllowedException}
 * before that class is loaded. Raw codecs (arrays, buffers, segments) involve no class at all.
 *
 * <p>Thread-safe: any thread may decode; Kryo readers come from a pool owned by this instance. Make one per
 * worker or client (or share one per process) and pass it where frames are decoded.
 */
public final class Deserializer {

    private static final ValueLayout.OfLong LONG_LE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final ClassAllowList allowed;
    private final Pool<Kryo> readers;

    public Deserializer(ClassAllowList allowed) {
        this.allowed = allowed;
        this.readers = KryoPool.readers(allowed);
    }

    public ClassAllowList allowed() {
        return allowed;
    }

    /**
     * Decodes {@code serialized}.
     *
     * @throws ClassNotAllowedException if the frames name a class the allow-list does not allow
     * @throws SerializationException on an unknown codec, a wrong frame count, or bytes Kryo cannot read
     */
    public Object decode(Serialized serialized) {
        List<Frame> frames = serialized.frames();
        if (frames.size() != 1) {
            throw new SerializationException("codec " + serialized.codec() + " expects 1 frame, got " + frames.size());
        }
        Frame frame = frames.getFirst();
        MemorySegment segment = frame.segment();
        Object base = segment.heapBase().orElse(null);
        return switch (serialized.codec()) {
            case Serialization.RAW_BYTES -> base instanceof byte[] b && b.length == segment.byteSize() ? b : frame.toByteArray();
            case Serialization.RAW_DOUBLES -> frame.toDoubleArray();
            case Serialization.RAW_LONGS -> base instanceof long[] l && l.length * 8L == segment.byteSize() ? l : longs(frame);
            case Serialization.RAW_BYTE_BUFFER -> base instanceof byte[] b && b.length == segment.byteSize()
                    ? ByteBuffer.wrap(b) : segment.asByteBuffer();
            case Serialization.RAW_SEGMENT -> segment;
            case Serialization.KRYO -> kryoDecode(segment);
            default -> throw new SerializationException("unknown codec '" + serialized.codec() + "'");
        };
    }

    private static long[] longs(Frame frame) {
        if (frame.size() % Long.BYTES != 0) {
            throw new SerializationException("raw:long[] frame of " + frame.size() + " bytes is not a whole number of longs");
        }
        return frame.segment().toArray(LONG_LE);
    }

    private Object kryoDecode(MemorySegment segment) {
        byte[] bytes = segment.heapBase().orElse(null) instanceof byte[] b && b.length == segment.byteSize()
                ? b : segment.toArray(ValueLayout.JAVA_BYTE);
        Kryo kryo = readers.obtain();
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        kryo.setClassLoader(context != null ? context : Deserializer.class.getClassLoader());
        try {
            return kryo.readClassAndObject(new Input(bytes));
        } catch (RuntimeException e) {
            ClassNotAllowedException refused = find(e, ClassNotAllowedException.class);
            if (refused != null) {
                throw refused == e ? refused : refused.withContext(trace(e), e);
            }
            throw new SerializationException("cannot deserialize kryo frame of " + bytes.length + " bytes: " + e.getMessage()
                    + rootCause(e), e);
        } finally {
            readers.free(kryo);
        }
    }

    /**
     * Decodes a small value of the kinds every task carries (a list, a number, a string, a serializable lambda),
     * so that this instance's first real decode does not pay for loading and linking Kryo and for spinning the
     * JDK's lambda classes. A worker calls it on a background thread as it starts: cold, that work took a
     * worker's first task about 0.1 s for Kryo alone on the 2-core VM, with the lambda path on top. Any thread;
     * safe to call concurrently with {@link #decode}.
     *
     * @throws SerializationException if the value does not come back equal (a broken set-up, found early)
     */
    public void warmUp() {
        Supplier<String> lambda = (Supplier<String> & Serializable) () -> "warm-up";
        Object back = decode(Serialization.encode(new ArrayList<>(List.of("warm-up", 1L, 1.0, lambda))));
        if (!(back instanceof List<?> l) || l.size() != 4 || !"warm-up".equals(l.getFirst())
                || !(l.get(3) instanceof Supplier<?> s) || !"warm-up".equals(s.get())) {
            throw new SerializationException("the warm-up value came back as " + back);
        }
    }

    /** Kryo's trace of the fields it was reading ("field (Class)" lines), on one line. */
    private static String trace(RuntimeException e) {
        String message = String.valueOf(e.getMessage());
        int at = message.indexOf("Serialization trace:");
        return at < 0 ? "while reading " + e.getClass().getSimpleName()
                : "while reading " + message.substring(at + "Serialization trace:".length()).strip().replace('\n', ' ');
    }

    private static <T extends Throwable> T find(Throwable e, Class<T> type) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }

    /**
     * The innermost cause, named in the message: Kryo wraps the real reason (a missing class, a lambda whose
     * capturing class refuses it) in exceptions that only say which field it was reading, and the message is
     * often all a remote caller sees.
     */
    private static String rootCause(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == e ? "" : " (root cause: " + root + ")";
    }
}
