package io.dask4j.comm.stats;

import io.dask4j.comm.Frame;
import io.dask4j.comm.Message;
import io.dask4j.comm.wire.WireCodec;

import java.util.List;
import java.util.Map;

/**
 * The size of a {@link Message} in the dask4j wire format (prelude, msgpack header, frames), computed
 * without encoding it: the same bytes a tcp comm writes, and what an inproc hand-off would cost on a
 * wire. Traffic counters use it so every transport counts alike.
 *
 * <p>Mirrors {@code io.dask4j.comm.wire.WireCodec} and {@code MsgpackWriter} exactly for every type a
 * header may carry, and refuses what the encoder refuses, with the same message: sizing a message checks it.
 * That check is the only one an inproc write makes ({@link WireCodec#checkEncodable} is this walk), so a
 * message written through the handshaken layer is walked once, not once to size it and once to check it.
 *
 * <p>Stateless and thread-safe; allocation-free. {@link #beginWrite}/{@link #endWrite} keep, per thread,
 * the message that thread is writing.
 */
public final class WireSize {
    /** The wire format's fixed prelude (magic, version, flags, header length). */
    static final int PRELUDE_BYTES = 8;

    /** Deepest nesting the encoder takes, counted as it counts: a top-level field's value is at depth 1. */
    private static final int MAX_DEPTH = 64;

    /**
     * The message this thread is writing and its size: an inproc write delivers on the writer's thread, and the
     * receiving comm counts the same message; sizing it once instead of twice saved about a twentieth of a
     * no-op map's time in one JVM. Cleared when the write returns, so it never keeps a message alive.
     */
    private static final ThreadLocal<Writing> WRITING = ThreadLocal.withInitial(Writing::new);

    private static final class Writing {
        Message message;
        long bytes;
    }

    private WireSize() {
    }

    /**
     * Bytes of {@code m} on the wire: prelude + header + frames.
     *
     * @throws IllegalArgumentException naming the first header field the encoder would refuse
     */
    public static long of(Message m) {
        long n = PRELUDE_BYTES + 1 + string(m.op());
        Map<String, Object> fields = m.fields();
        n += collectionHeader(fields.size());
        for (Map.Entry<String, Object> e : fields.entrySet()) {
            n += string(e.getKey()) + value(e.getValue(), e.getKey(), 1);
        }
        List<Frame> frames = m.frames();
        int count = frames.size();
        n += collectionHeader(count) + binaryHeader(count) + count;
        for (int i = 0; i < count; i++) {
            long size = frames.get(i).size();
            n += integer(size) + size;
        }
        return n;
    }

    /**
     * Sizes (and so checks) {@code m}, which the calling thread is about to write, and remembers it until
     * {@link #endWrite()}: meanwhile {@link #isBeingWritten} tells a transport below that it needs no check of
     * its own, and {@link #ofRemembered} gives the receiving end of an inproc write (same thread) the size.
     *
     * @throws IllegalArgumentException naming the first header field the encoder would refuse
     */
    public static long beginWrite(Message m) {
        long n = of(m);
        Writing w = WRITING.get();
        w.message = m;
        w.bytes = n;
        return n;
    }

    /** Ends what {@link #beginWrite} began on this thread. */
    public static void endWrite() {
        WRITING.get().message = null;
    }

    /** Whether this thread is writing {@code m}, sized and checked by {@link #beginWrite}. */
    public static boolean isBeingWritten(Message m) {
        return WRITING.get().message == m;
    }

    /** {@link #of}, without a second walk when {@code m} is the message this thread is writing. */
    public static long ofRemembered(Message m) {
        Writing w = WRITING.get();
        return w.message == m ? w.bytes : of(m);
    }

    /** An instanceof chain, commonest header types first: measured about twice as fast as a type switch here. */
    private static long value(Object v, String field, int depth) {
        if (depth > MAX_DEPTH) {
            throw new IllegalArgumentException("header field '" + field + "' nests deeper than " + MAX_DEPTH);
        }
        if (v instanceof String s) {
            return string(s);
        }
        if (v instanceof Long l) {
            return integer(l);
        }
        if (v instanceof byte[] b) {
            return binaryHeader(b.length) + b.length;
        }
        if (v instanceof List<?> list) {
            int size = list.size();
            long n = collectionHeader(size);
            for (int i = 0; i < size; i++) {
                n += value(list.get(i), field, depth + 1);
            }
            return n;
        }
        if (v == null || v instanceof Boolean) {
            return 1;
        }
        if (v instanceof Integer i) {
            return integer(i);
        }
        if (v instanceof Double || v instanceof Float) {
            return 9;
        }
        if (v instanceof Map<?, ?> map) {
            long n = collectionHeader(map.size());
            for (Map.Entry<?, ?> e : map.entrySet()) {
                if (!(e.getKey() instanceof String k)) {
                    throw new IllegalArgumentException("header field '" + field + "' has a map key that is not a String: "
                            + e.getKey());
                }
                n += string(k) + value(e.getValue(), field, depth + 1);
            }
            return n;
        }
        if (v instanceof Short sh) {
            return integer(sh);
        }
        if (v instanceof Byte by) {
            return integer(by);
        }
        throw new IllegalArgumentException("header field '" + field + "' has unsupported type "
                + v.getClass().getName() + "; put objects in frames (io.dask4j.comm.serialize.Serialization)");
    }

    static int integer(long v) {
        if (v >= 0) {
            return v < 128 ? 1 : v < 256 ? 2 : v < 65_536 ? 3 : v < (1L << 32) ? 5 : 9;
        }
        return v >= -32 ? 1 : v >= Byte.MIN_VALUE ? 2 : v >= Short.MIN_VALUE ? 3 : v >= Integer.MIN_VALUE ? 5 : 9;
    }

    static long string(String s) {
        int n = utf8Length(s);
        return (n < 32 ? 1 : n < 256 ? 2 : n < 65_536 ? 3 : 5) + (long) n;
    }

    private static int binaryHeader(int n) {
        return n < 256 ? 2 : n < 65_536 ? 3 : 5;
    }

    private static int collectionHeader(int n) {
        return n < 16 ? 1 : n < 65_536 ? 3 : 5;
    }

    /** UTF-8 length as {@code String.getBytes(UTF_8)} gives it (a lone surrogate becomes one '?'). */
    static int utf8Length(String s) {
        int len = s.length();
        int n = len;
        for (int i = 0; i < len; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                continue;
            }
            if (c < 0x800) {
                n += 1;
            } else if (Character.isHighSurrogate(c) && i + 1 < len && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 2;
                i++;
            } else if (!Character.isSurrogate(c)) {
                n += 2;
            }
        }
        return n;
    }
}
