package io.dask4j.comm.wire;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Writes the msgpack subset that message headers use (nil, bool, int, float64, str, bin, array, map)
 * into a growable array that is reused from message to message. Not thread-safe: one per writer.
 *
 * <p>Hand-written rather than msgpack-core because msgpack-core 0.9 calls sun.misc.Unsafe (a warning on
 * every JDK 25 start) and cannot read direct buffers without {@code --add-opens}. The bytes are
 * standard msgpack; a test checks that msgpack-core reads them.
 */
final class MsgpackWriter {

    private static final int MAX_DEPTH = 64;
    private byte[] buf;
    private int pos;

    MsgpackWriter(int initialCapacity) {
        buf = new byte[initialCapacity];
    }

    void reset() {
        pos = 0;
    }

    int position() {
        return pos;
    }

    byte[] array() {
        return buf;
    }

    void putIntAt(int at, int value) {
        buf[at] = (byte) (value >>> 24);
        buf[at + 1] = (byte) (value >>> 16);
        buf[at + 2] = (byte) (value >>> 8);
        buf[at + 3] = (byte) value;
    }

    void raw(byte b) {
        ensure(1);
        buf[pos++] = b;
    }

    void nil() {
        raw((byte) 0xc0);
    }

    void bool(boolean b) {
        raw((byte) (b ? 0xc3 : 0xc2));
    }

    void integer(long v) {
        ensure(9);
        if (v >= 0) {
            if (v < 128) {
                buf[pos++] = (byte) v;
            } else if (v < 256) {
                buf[pos++] = (byte) 0xcc;
                buf[pos++] = (byte) v;
            } else if (v < 65_536) {
                buf[pos++] = (byte) 0xcd;
                be(v, 2);
            } else if (v < (1L << 32)) {
                buf[pos++] = (byte) 0xce;
                be(v, 4);
            } else {
                buf[pos++] = (byte) 0xcf;
                be(v, 8);
            }
        } else if (v >= -32) {
            buf[pos++] = (byte) v;
        } else if (v >= Byte.MIN_VALUE) {
            buf[pos++] = (byte) 0xd0;
            buf[pos++] = (byte) v;
        } else if (v >= Short.MIN_VALUE) {
            buf[pos++] = (byte) 0xd1;
            be(v, 2);
        } else if (v >= Integer.MIN_VALUE) {
            buf[pos++] = (byte) 0xd2;
            be(v, 4);
        } else {
            buf[pos++] = (byte) 0xd3;
            be(v, 8);
        }
    }

    void float64(double d) {
        ensure(9);
        buf[pos++] = (byte) 0xcb;
        be(Double.doubleToRawLongBits(d), 8);
    }

    void string(String s) {
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        int n = utf8.length;
        ensure(5 + n);
        if (n < 32) {
            buf[pos++] = (byte) (0xa0 | n);
        } else if (n < 256) {
            buf[pos++] = (byte) 0xd9;
            buf[pos++] = (byte) n;
        } else if (n < 65_536) {
            buf[pos++] = (byte) 0xda;
            be(n, 2);
        } else {
            buf[pos++] = (byte) 0xdb;
            be(n, 4);
        }
        System.arraycopy(utf8, 0, buf, pos, n);
        pos += n;
    }

    void binary(byte[] b) {
        binaryHeader(b.length);
        ensure(b.length);
        System.arraycopy(b, 0, buf, pos, b.length);
        pos += b.length;
    }

    void binaryHeader(int n) {
        ensure(5);
        if (n < 256) {
            buf[pos++] = (byte) 0xc4;
            buf[pos++] = (byte) n;
        } else if (n < 65_536) {
            buf[pos++] = (byte) 0xc5;
            be(n, 2);
        } else {
            buf[pos++] = (byte) 0xc6;
            be(n, 4);
        }
    }

    void arrayHeader(int n) {
        collectionHeader(n, 0x90, 0xdc, 0xdd);
    }

    void mapHeader(int n) {
        collectionHeader(n, 0x80, 0xde, 0xdf);
    }

    /** Any header field value; see {@link io.dask4j.comm.Message} for the allowed types. */
    void value(Object v, String field) {
        value(v, field, 1); // a field's value sits one level down, inside the fields map, as MsgpackReader counts
    }

    private void value(Object v, String field, int depth) {
        if (depth > MAX_DEPTH) {
            throw new IllegalArgumentException("header field '" + field + "' nests deeper than " + MAX_DEPTH);
        }
        switch (v) {
            case null -> nil();
            case Boolean b -> bool(b);
            case Long l -> integer(l);
            case Integer i -> integer(i);
            case Short s -> integer(s);
            case Byte b -> integer(b);
            case Double d -> float64(d);
            case Float f -> float64(f);
            case String s -> string(s);
            case byte[] b -> binary(b);
            case List<?> list -> {
                arrayHeader(list.size());
                for (Object item : list) {
                    value(item, field, depth + 1);
                }
            }
            case Map<?, ?> map -> {
                mapHeader(map.size());
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    if (!(e.getKey() instanceof String key)) {
                        throw new IllegalArgumentException("header field '" + field + "' has a map key that is not a String: "
                                + e.getKey());
                    }
                    string(key);
                    value(e.getValue(), field, depth + 1);
                }
            }
            default -> throw new IllegalArgumentException("header field '" + field + "' has unsupported type "
                    + v.getClass().getName() + "; put objects in frames (io.dask4j.comm.serialize.Serialization)");
        }
    }

    private void collectionHeader(int n, int fix, int x16, int x32) {
        ensure(5);
        if (n < 16) {
            buf[pos++] = (byte) (fix | n);
        } else if (n < 65_536) {
            buf[pos++] = (byte) x16;
            be(n, 2);
        } else {
            buf[pos++] = (byte) x32;
            be(n, 4);
        }
    }

    private void be(long v, int bytes) {
        for (int shift = (bytes - 1) * 8; shift >= 0; shift -= 8) {
            buf[pos++] = (byte) (v >>> shift);
        }
    }

    private void ensure(int more) {
        if (pos + more > buf.length) {
            long wanted = Math.max((long) buf.length * 2, (long) pos + more);
            if (wanted > Integer.MAX_VALUE - 8) {
                throw new IllegalArgumentException("message header larger than 2 GiB");
            }
            buf = Arrays.copyOf(buf, (int) wanted);
        }
    }
}
