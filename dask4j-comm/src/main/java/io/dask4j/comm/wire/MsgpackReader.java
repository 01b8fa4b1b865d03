package io.dask4j.comm.wire;

import io.dask4j.comm.ProtocolException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the msgpack subset of {@link MsgpackWriter} from a buffer (heap or direct), defensively: every
 * length is checked against the bytes left before anything is allocated, nesting is bounded, and any
 * violation is a {@link ProtocolException}. Extension types are rejected. Not thread-safe.
 */
final class MsgpackReader {

    private static final int MAX_DEPTH = 64;
    private final ByteBuffer in;

    MsgpackReader(ByteBuffer in) {
        this.in = in.slice().order(java.nio.ByteOrder.BIG_ENDIAN);
    }

    int remaining() {
        return in.remaining();
    }

    Object value() {
        return value(0);
    }

    private Object value(int depth) {
        if (depth > MAX_DEPTH) {
            throw new ProtocolException("msgpack value nests deeper than " + MAX_DEPTH);
        }
        int b = u8();
        if (b <= 0x7f || b >= 0xe0) {
            return (long) (byte) b;
        }
        if ((b & 0xe0) == 0xa0) {
            return str(b & 0x1f);
        }
        if ((b & 0xf0) == 0x90) {
            return list(b & 0x0f, depth);
        }
        if ((b & 0xf0) == 0x80) {
            return map(b & 0x0f, depth);
        }
        return switch (b) {
            case 0xc0 -> null;
            case 0xc2 -> Boolean.FALSE;
            case 0xc3 -> Boolean.TRUE;
            case 0xcc -> (long) u8();
            case 0xcd -> (long) u16();
            case 0xce -> u32();
            case 0xcf -> {
                long v = need(8).getLong();
                if (v < 0) {
                    throw new ProtocolException("msgpack uint64 " + Long.toUnsignedString(v) + " exceeds a signed long");
                }
                yield v;
            }
            case 0xd0 -> (long) need(1).get();
            case 0xd1 -> (long) need(2).getShort();
            case 0xd2 -> (long) need(4).getInt();
            case 0xd3 -> need(8).getLong();
            case 0xca -> (double) need(4).getFloat();
            case 0xcb -> need(8).getDouble();
            case 0xd9 -> str(u8());
            case 0xda -> str(u16());
            case 0xdb -> str(length(u32()));
            case 0xc4 -> bin(u8());
            case 0xc5 -> bin(u16());
            case 0xc6 -> bin(length(u32()));
            case 0xdc -> list(u16(), depth);
            case 0xdd -> list(length(u32()), depth);
            case 0xde -> map(u16(), depth);
            case 0xdf -> map(length(u32()), depth);
            default -> throw new ProtocolException("unsupported msgpack type byte 0x" + Integer.toHexString(b));
        };
    }

    String string() {
        if (!(value() instanceof String s)) {
            throw new ProtocolException("expected a msgpack string");
        }
        return s;
    }

    /** Reads an array header and returns its size, checked against the bytes left. */
    int arrayHeader() {
        int b = u8();
        int n;
        if ((b & 0xf0) == 0x90) {
            n = b & 0x0f;
        } else if (b == 0xdc) {
            n = u16();
        } else if (b == 0xdd) {
            n = length(u32());
        } else {
            throw new ProtocolException("expected a msgpack array, got type byte 0x" + Integer.toHexString(b));
        }
        return checkCount(n);
    }

    private String str(int n) {
        byte[] bytes = bytes(n);
        // Keys, ops and task names are ASCII: take the cheap path (no decoder object per string, which
        // showed at the top of the scheduler's profile) and keep strict checking for everything else.
        if (isAscii(bytes)) {
            return new String(bytes, StandardCharsets.ISO_8859_1);
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new ProtocolException("msgpack string is not valid UTF-8", e);
        }
    }

    private static boolean isAscii(byte[] bytes) {
        for (byte b : bytes) {
            if (b < 0) {
                return false;
            }
        }
        return true;
    }

    private byte[] bin(int n) {
        return bytes(n);
    }

    private byte[] bytes(int n) {
        // The length is the peer's claim: check it against the bytes left before allocating, so that a
        // few-byte header cannot make this process allocate (and zero) gigabytes.
        ByteBuffer source = need(n);
        byte[] bytes = new byte[n];
        source.get(bytes);
        return bytes;
    }

    private List<Object> list(int n, int depth) {
        List<Object> list = new ArrayList<>(checkCount(n));
        for (int i = 0; i < n; i++) {
            list.add(value(depth + 1));
        }
        return Collections.unmodifiableList(list);
    }

    private Map<String, Object> map(int n, int depth) {
        checkCount(n);
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            if (!(value(depth + 1) instanceof String key)) {
                throw new ProtocolException("msgpack map key is not a string");
            }
            map.put(key, value(depth + 1));
        }
        return Collections.unmodifiableMap(map);
    }

    /** Every element takes at least one byte, so a count above the bytes left is a lie. */
    private int checkCount(int n) {
        if (n > in.remaining()) {
            throw new ProtocolException("msgpack collection claims " + n + " elements but only " + in.remaining()
                    + " bytes are left");
        }
        return n;
    }

    private static int length(long n) {
        if (n > Integer.MAX_VALUE - 8) {
            throw new ProtocolException("msgpack length " + n + " is too large");
        }
        return (int) n;
    }

    private int u8() {
        return need(1).get() & 0xff;
    }

    private int u16() {
        return need(2).getShort() & 0xffff;
    }

    private long u32() {
        return need(4).getInt() & 0xffff_ffffL;
    }

    private ByteBuffer need(int n) {
        if (in.remaining() < n) {
            throw new ProtocolException("truncated msgpack: needed " + n + " more bytes, " + in.remaining() + " left");
        }
        return in;
    }
}
