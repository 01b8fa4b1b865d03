package io.dask4j.runtime.protocol;

import io.dask4j.comm.ProtocolException;
import io.dask4j.runtime.task.KeyRef;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * A compact encoding for the commonest task arguments: an {@code Object[]} holding only nulls,
 * Integers, Longs, Doubles, Booleans, Strings and {@link KeyRef}s. A map over 100,000 numbers then costs
 * no object-serializer call per task on the client or the worker. Anything else goes through the
 * general serializer. Stateless and thread-safe.
 *
 * <p>Format: magic byte {@value #MAGIC}, an int count, then per value a tag byte and its payload.
 */
final class SimpleArgs {
    static final byte MAGIC = (byte) 0xA5;
    private static final byte NULL = 0;
    private static final byte INT = 1;
    private static final byte LONG = 2;
    private static final byte DOUBLE = 3;
    private static final byte TRUE = 4;
    private static final byte FALSE = 5;
    private static final byte STRING = 6;
    private static final byte KEY_REF = 7;

    private SimpleArgs() {
    }

    static boolean fits(Object value) {
        if (!(value instanceof Object[] args) || args.getClass() != Object[].class || args.length > 64) {
            return false;
        }
        for (Object a : args) {
            if (!(a == null || a instanceof Integer || a instanceof Long || a instanceof Double || a instanceof Boolean
                    || (a instanceof String s && s.length() < 256) || a instanceof KeyRef)) {
                return false;
            }
        }
        return true;
    }

    static byte[] encode(Object[] args) {
        int size = 5;
        byte[][] texts = new byte[args.length][];
        for (int i = 0; i < args.length; i++) {
            Object a = args[i];
            if (a instanceof String s) {
                texts[i] = s.getBytes(StandardCharsets.UTF_8);
            } else if (a instanceof KeyRef r) {
                texts[i] = r.key().getBytes(StandardCharsets.UTF_8);
            }
            size += 1 + (texts[i] != null ? 4 + texts[i].length : 8);
        }
        ByteBuffer out = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        out.put(MAGIC).putInt(args.length);
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case null -> out.put(NULL);
                case Integer v -> out.put(INT).putInt(v);
                case Long v -> out.put(LONG).putLong(v);
                case Double v -> out.put(DOUBLE).putDouble(v);
                case Boolean v -> out.put(v ? TRUE : FALSE);
                case String s -> out.put(STRING).putInt(texts[i].length).put(texts[i]);
                case KeyRef r -> out.put(KEY_REF).putInt(texts[i].length).put(texts[i]);
                default -> throw new IllegalArgumentException("not a simple argument: " + args[i].getClass());
            }
        }
        return java.util.Arrays.copyOf(out.array(), out.position());
    }

    static Object[] decode(byte[] bytes) {
        try {
            ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
            in.get();
            int n = in.getInt();
            if (n < 0 || n > 64) {
                throw new ProtocolException("simple arguments claim " + n + " values");
            }
            Object[] args = new Object[n];
            for (int i = 0; i < n; i++) {
                byte tag = in.get();
                args[i] = switch (tag) {
                    case NULL -> null;
                    case INT -> in.getInt();
                    case LONG -> in.getLong();
                    case DOUBLE -> in.getDouble();
                    case TRUE -> Boolean.TRUE;
                    case FALSE -> Boolean.FALSE;
                    case STRING -> text(in);
                    case KEY_REF -> new KeyRef(text(in));
                    default -> throw new ProtocolException("unknown simple argument tag " + tag);
                };
            }
            return args;
        } catch (java.nio.BufferUnderflowException | IllegalArgumentException e) {
            throw new ProtocolException("truncated simple arguments", e);
        }
    }

    private static String text(ByteBuffer in) {
        byte[] b = new byte[in.getInt()];
        in.get(b);
        return new String(b, StandardCharsets.UTF_8);
    }
}
