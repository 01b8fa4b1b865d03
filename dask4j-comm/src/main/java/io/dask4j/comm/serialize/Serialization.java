package io.dask4j.comm.serialize;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Output;
import io.dask4j.comm.Frame;
import java.io.Serializable;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * Turns user objects (task functions, arguments, results) into frames and back.
 *
 * <p>Encoding is static (any class may be written); decoding is {@link Deserializer#decode}.
 *
 * <p><b>Raw codecs, no serializer, no copy.</b> {@code byte[]}, {@code double[]}, {@code long[]},
 * {@link ByteBuffer} (its remaining bytes) and {@link MemorySegment} become one frame wrapping their own
 * memory ({@code raw:byte[]}, {@code raw:double[]}, {@code raw:long[]}, {@code raw:ByteBuffer}, {@code
 * raw:MemorySegment}). Decoding returns the frame's own array when it is exactly one of that type (tcp
 * reads {@code double[]} frames straight into a {@code double[]}, inproc hands the sender's array over),
 * and copies only when it is not (e.g. a native segment decoded as {@code double[]}).
 *
 * <p><b>Everything else: Kryo 5.6</b> ({@code kryo}, one frame), configured for what a task scheduler
 * ships: serializable lambdas and method references (they must be {@link Serializable}, e.g. {@code
 * (Function<A, B> & Serializable) x -> ...}; a non-serializable lambda is refused with a clear error),
 * records, JDK collections including {@code List.of} and unmodifiable wrappers, cycles and shared
 * references, and classes nobody registered. The bytes name the classes to build, so decoding is a {@link
 * Deserializer}'s job: it builds only the classes its {@link ClassAllowList} allows, and only frames from an
 * authenticated peer reach it (the comm handshake guarantees this for comms made by {@link
 * io.dask4j.comm.Comms}). Java serialization is never used.
 *
 * <p><b>Why Kryo 5.6 rather than Fory 1.6</b> (a round-trip comparison of the two on a 2-core
 * VM, noisy): warm, Fory was 2-3x faster on a task-like record (1.3-1.6 us vs 4.0-4.5 us per encode+decode)
 * and ~1.6x on a lambda (0.8 vs 1.3 us); cold, Fory's first round trip in a fresh JVM took 1.5-2.2 s (it
 * generates a serializer per class) against Kryo's 0.25 s, and Fory needs {@code
 * --sun-misc-unsafe-memory-access=allow} on JDK 25 to run without warnings while Kryo runs clean with
 * {@code kryo.unsafe=false}. Task specs are small (microseconds either way, next to 15-100 us per message)
 * and bulk data bypasses the serializer, whereas every worker start and every new task class would pay
 * Fory's warm-up: Kryo. The codec name in {@link Serialized} leaves room to add Fory later.
 *
 * <p>Thread-safe: Kryo instances are not, so they come from a {@link com.esotericsoftware.kryo.util.Pool}
 * (not a ThreadLocal, which would build one per virtual thread).
 */
public final class Serialization {

    public static final String RAW_BYTES = "raw:byte[]";
    public static final String RAW_DOUBLES = "raw:double[]";
    public static final String RAW_LONGS = "raw:long[]";
    public static final String RAW_BYTE_BUFFER = "raw:ByteBuffer";
    public static final String RAW_SEGMENT = "raw:MemorySegment";
    public static final String KRYO = "kryo";

    private static final int MAX_RETAINED_OUTPUT_BYTES = 1 << 20;

    private Serialization() {
    }

    /**
     * Encodes {@code value} (which may be {@code null}).
     *
     * @throws SerializationException if Kryo cannot encode it (e.g. a lambda that is not Serializable)
     */
    public static Serialized encode(Object value) {
        return switch (value) {
            case byte[] b -> new Serialized(RAW_BYTES, List.of(Frame.of(b)));
            case double[] d -> new Serialized(RAW_DOUBLES, List.of(Frame.of(d)));
            case long[] l -> new Serialized(RAW_LONGS, List.of(Frame.of(l)));
            case ByteBuffer b -> new Serialized(RAW_BYTE_BUFFER, List.of(Frame.of(b)));
            case MemorySegment s -> new Serialized(RAW_SEGMENT, List.of(Frame.of(s)));
            case null, default -> new Serialized(KRYO, List.of(Frame.of(kryoEncode(value))));
        };
    }

    private static byte[] kryoEncode(Object value) {
        refuseNonSerializableLambda(value);
        Kryo kryo = KryoPool.WRITERS.obtain();
        Output output = KryoPool.OUTPUTS.obtain();
        try {
            output.reset();
            kryo.writeClassAndObject(output, value);
            return output.toBytes();
        } catch (RuntimeException e) {
            throw new SerializationException("cannot serialize a " + (value == null ? "null" : value.getClass().getName())
                    + ": " + e.getMessage(), e);
        } finally {
            if (output.getBuffer().length > MAX_RETAINED_OUTPUT_BYTES) {
                output.setBuffer(new byte[4096], -1);   // do not let one huge object pin memory forever
            }
            KryoPool.OUTPUTS.free(output);
            KryoPool.WRITERS.free(kryo);
        }
    }

    private static void refuseNonSerializableLambda(Object value) {
        if (value != null && value.getClass().isHidden() && value.getClass().getName().contains("$$Lambda")
                && !(value instanceof Serializable)) {
            throw new SerializationException("cannot serialize a lambda that is not Serializable ("
                    + value.getClass().getName() + "); give it a Serializable type, e.g. (Function<A, B> & Serializable) x -> ...");
        }
    }
}
