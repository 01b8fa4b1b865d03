package io.dask4j.runtime.protocol;

import io.dask4j.comm.Frame;
import io.dask4j.comm.Message;
import io.dask4j.comm.ProtocolException;
import io.dask4j.comm.serialize.Deserializer;
import io.dask4j.comm.serialize.Serialization;
import io.dask4j.comm.serialize.Serialized;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The runtime's one door to the comm layer's object serialization ({@link Serialization}): raw frames
 * for arrays and buffers, Kryo for the rest. Values travel either as frames of a data message
 * ({@link #addValue}/{@link #values}) or, when small and embedded in a header (task arguments,
 * functions), packed into one byte array ({@link #toBytes}/{@link #fromBytes}).
 *
 * <p>Decoding takes the caller's {@link Deserializer}, which builds only the classes its allow-list allows.
 * Only called on comms that completed the authenticated handshake. Stateless and thread-safe.
 */
public final class Codec {

    private Codec() {
    }

    public static Serialized encode(Object value) {
        return Serialization.encode(value);
    }

    /** Decodes {@code s}, building only the classes {@code decoder} allows. */
    public static Object decode(Serialized s, Deserializer decoder) {
        return decoder.decode(s);
    }

    /**
     * Packs a value as {@code [codec][frame count][frame lengths][frame bytes]}, or, for an argument
     * array of plain numbers, strings and key references, in {@link SimpleArgs}' compact form.
     */
    public static byte[] toBytes(Object value) {
        if (SimpleArgs.fits(value)) {
            return SimpleArgs.encode((Object[]) value);
        }
        Serialized s = encode(value);
        byte[] codec = s.codec().getBytes(StandardCharsets.UTF_8);
        long total = 2 + codec.length + 4 + 8L * s.frames().size();
        for (Frame f : s.frames()) {
            total += f.size();
        }
        if (total > Integer.MAX_VALUE - 16) {
            throw new IllegalArgumentException("value too large to embed (" + total + " bytes): scatter it instead");
        }
        ByteBuffer out = ByteBuffer.allocate((int) total).order(ByteOrder.LITTLE_ENDIAN);
        if ((codec.length & 0xFF) == (SimpleArgs.MAGIC & 0xFF)) {
            // The first byte tells the two forms apart; codec names are far shorter than this.
            throw new IllegalStateException("codec name of " + codec.length + " bytes clashes with the compact form");
        }
        out.putShort((short) codec.length).put(codec).putInt(s.frames().size());
        for (Frame f : s.frames()) {
            out.putLong(f.size());
        }
        for (Frame f : s.frames()) {
            MemorySegment.copy(f.segment(), ValueLayout.JAVA_BYTE, 0, out.array(), out.position(), (int) f.size());
            out.position(out.position() + (int) f.size());
        }
        return out.array();
    }

    public static Object fromBytes(byte[] bytes, Deserializer decoder) {
        if (bytes.length > 0 && bytes[0] == SimpleArgs.MAGIC) {
            return SimpleArgs.decode(bytes);
        }
        try {
            ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
            byte[] codec = new byte[in.getShort()];
            in.get(codec);
            int n = in.getInt();
            if (n < 0 || n > 1 << 20) {
                throw new ProtocolException("packed value claims " + n + " frames");
            }
            long[] sizes = new long[n];
            for (int i = 0; i < n; i++) {
                sizes[i] = in.getLong();
            }
            List<Frame> frames = new ArrayList<>(n);
            MemorySegment all = MemorySegment.ofArray(bytes);
            long pos = in.position();
            for (long size : sizes) {
                if (size < 0 || pos + size > bytes.length) {
                    throw new ProtocolException("packed value frame overruns its bytes");
                }
                frames.add(Frame.of(all.asSlice(pos, size)));
                pos += size;
            }
            return decode(new Serialized(new String(codec, StandardCharsets.UTF_8), frames), decoder);
        } catch (java.nio.BufferUnderflowException | NegativeArraySizeException e) {
            throw new ProtocolException("truncated packed value", e);
        }
    }

    /** Appends {@code value} to a data message under construction: its codec, frame count and frames. */
    public static void addValue(Object value, List<Object> codecs, List<Object> counts, List<Frame> frames) {
        Serialized s = encode(value);
        codecs.add(s.codec());
        counts.add((long) s.frames().size());
        frames.addAll(s.frames());
    }

    /**
     * A data message carrying {@code values}: raw arrays and buffers each as their own frames (no copy,
     * no serializer), and when every value is a plain object, all of them as one serialized list (one
     * serializer call for thousands of small results instead of one each).
     */
    public static Message dataMessage(String op, Map<String, Object> fields, List<Object> values) {
        Map<String, Object> f = new HashMap<>(fields);
        List<Frame> frames = new ArrayList<>();
        boolean allPlain = values.size() > 1;
        for (Object v : values) {
            if (isRaw(v)) {
                allPlain = false;
                break;
            }
        }
        if (allPlain) {
            Serialized s = encode(new ArrayList<>(values));
            f.put("bulk", s.codec());
            f.put("codecs", List.of());
            f.put("counts", List.of());
            frames.addAll(s.frames());
        } else {
            List<Object> codecs = new ArrayList<>();
            List<Object> counts = new ArrayList<>();
            for (Object v : values) {
                addValue(v, codecs, counts, frames);
            }
            f.put("codecs", codecs);
            f.put("counts", counts);
        }
        return Message.of(op, f, frames);
    }

    private static boolean isRaw(Object v) {
        return v instanceof byte[] || v instanceof double[] || v instanceof long[] || v instanceof ByteBuffer
                || v instanceof MemorySegment;
    }

    /** The values of a data message built with {@link #dataMessage} or {@link #addValue}, in order. */
    public static List<Object> values(Message m, Deserializer decoder) {
        if (m.has("bulk")) {
            Object list = decode(new Serialized(m.getString("bulk"), m.frames()), decoder);
            if (!(list instanceof List<?> l)) {
                throw new ProtocolException("data message: bulk values are not a list");
            }
            return new ArrayList<>(l);
        }
        List<Object> codecs = m.getList("codecs");
        List<Object> counts = m.getList("counts");
        if (codecs.size() != counts.size()) {
            throw new ProtocolException("data message: codecs and counts differ in length");
        }
        List<Object> out = new ArrayList<>(codecs.size());
        int next = 0;
        for (int i = 0; i < codecs.size(); i++) {
            int n = ((Number) counts.get(i)).intValue();
            if (n < 0 || next + n > m.frames().size()) {
                throw new ProtocolException("data message: value " + i + " refers to missing frames");
            }
            out.add(decode(new Serialized(String.valueOf(codecs.get(i)), m.frames().subList(next, next + n)), decoder));
            next += n;
        }
        return out;
    }
}
