package io.dask4j.array.io;

import java.io.Serializable;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The type of one stored element, as NumPy names it ({@code <f8}, {@code >i4}, {@code |u1}): a kind, a
 * size and a byte order. Every supported type is read as a {@code double} (as NumPy's {@code astype(float)}
 * would: 64-bit integers beyond 2^53 round); dask4j writes {@code <f8}. Immutable.
 *
 * @param kind  floating point, signed or unsigned integer
 * @param bytes the element size: 4 or 8 for floats, 1, 2, 4 or 8 for integers
 * @param bigEndian whether the file stores the bytes most significant first (a boolean, not a {@link ByteOrder},
 *                  so that the type serializes into tasks without reflection into the JDK)
 */
public record ElementType(Kind kind, int bytes, boolean bigEndian) implements Serializable {

    /** The element kinds dask4j reads. */
    public enum Kind { FLOAT, INT, UINT }

    /** Little-endian float64, what dask4j writes. */
    public static final ElementType FLOAT64_LE = new ElementType(Kind.FLOAT, 8, false);

    public ElementType {
        boolean sized = switch (kind) {
            case FLOAT -> bytes == 4 || bytes == 8;
            case INT, UINT -> bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8;
        };
        if (!sized) {
            throw new IllegalArgumentException(kind + " elements of " + bytes + " bytes are not supported");
        }
    }

    /**
     * Parses a NumPy type string ({@code <f8}, {@code float32} is not one: use {@code <f4}); {@code file} names
     * the file in the error when the type is one dask4j does not read (complex, bool, strings, structured).
     */
    public static ElementType parse(String descr, Path file) {
        if (descr == null || descr.length() < 3) {
            throw new ArrayFileException(file, "element type '" + descr + "' is not a NumPy type string such as '<f8'");
        }
        boolean big = switch (descr.charAt(0)) {
            case '<', '|' -> false;
            case '>' -> true;
            case '=' -> ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN;
            default -> throw unsupported(descr, file);
        };
        Kind kind = switch (descr.charAt(1)) {
            case 'f' -> Kind.FLOAT;
            case 'i' -> Kind.INT;
            case 'u' -> Kind.UINT;
            default -> throw unsupported(descr, file);
        };
        int bytes;
        try {
            bytes = Integer.parseInt(descr.substring(2));
        } catch (NumberFormatException e) {
            throw unsupported(descr, file);
        }
        try {
            return new ElementType(kind, bytes, big);
        } catch (IllegalArgumentException e) {
            throw unsupported(descr, file);
        }
    }

    /**
     * Parses a type name as users write it for raw files: a NumPy type string ({@code <f8}) or a name
     * ({@code float64}, {@code float32}, {@code int8} ... {@code uint64}, little-endian unless the type string says).
     */
    public static ElementType named(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        return switch (n) {
            case "float64", "double" -> FLOAT64_LE;
            case "float32", "float" -> new ElementType(Kind.FLOAT, 4, false);
            case "int8" -> new ElementType(Kind.INT, 1, false);
            case "int16" -> new ElementType(Kind.INT, 2, false);
            case "int32" -> new ElementType(Kind.INT, 4, false);
            case "int64" -> new ElementType(Kind.INT, 8, false);
            case "uint8" -> new ElementType(Kind.UINT, 1, false);
            case "uint16" -> new ElementType(Kind.UINT, 2, false);
            case "uint32" -> new ElementType(Kind.UINT, 4, false);
            case "uint64" -> new ElementType(Kind.UINT, 8, false);
            default -> {
                try {
                    yield parse(name, null);
                } catch (ArrayFileException e) {
                    throw new IllegalArgumentException("unknown element type '" + name
                            + "': use float64, float32, int8..int64, uint8..uint64 or a NumPy type string such as '>f8'");
                }
            }
        };
    }

    private static ArrayFileException unsupported(String descr, Path file) {
        return new ArrayFileException(file, "element type '" + descr
                + "' is not supported (dask4j reads float32/64 and signed or unsigned 8- to 64-bit integers, either byte order)");
    }

    /** The NumPy type string, e.g. {@code <f8}. */
    public String numpy() {
        char o = bytes == 1 ? '|' : bigEndian ? '>' : '<';
        char k = switch (kind) {
            case FLOAT -> 'f';
            case INT -> 'i';
            case UINT -> 'u';
        };
        return "" + o + k + bytes;
    }

    /** The byte order in the file. */
    public ByteOrder order() {
        return bigEndian ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
    }

    /**
     * Converts {@code count} elements stored at {@code srcOffset} of {@code src} into doubles at {@code dst[dstIndex]}.
     * Float64 in either order is one bulk copy; the other types convert element by element.
     */
    public void decode(MemorySegment src, long srcOffset, double[] dst, int dstIndex, int count) {
        switch (kind) {
            case FLOAT -> {
                if (bytes == 8) {
                    MemorySegment.copy(src, ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(order()), srcOffset, dst, dstIndex, count);
                } else {
                    ValueLayout.OfFloat f = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(order());
                    for (int i = 0; i < count; i++) {
                        dst[dstIndex + i] = src.get(f, srcOffset + 4L * i);
                    }
                }
            }
            case INT, UINT -> decodeIntegers(src, srcOffset, dst, dstIndex, count);
        }
    }

    private void decodeIntegers(MemorySegment src, long srcOffset, double[] dst, int dstIndex, int count) {
        boolean signed = kind == Kind.INT;
        switch (bytes) {
            case 1 -> {
                for (int i = 0; i < count; i++) {
                    byte b = src.get(ValueLayout.JAVA_BYTE, srcOffset + i);
                    dst[dstIndex + i] = signed ? b : b & 0xff;
                }
            }
            case 2 -> {
                ValueLayout.OfShort s = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(order());
                for (int i = 0; i < count; i++) {
                    short v = src.get(s, srcOffset + 2L * i);
                    dst[dstIndex + i] = signed ? v : v & 0xffff;
                }
            }
            case 4 -> {
                ValueLayout.OfInt s = ValueLayout.JAVA_INT_UNALIGNED.withOrder(order());
                for (int i = 0; i < count; i++) {
                    int v = src.get(s, srcOffset + 4L * i);
                    dst[dstIndex + i] = signed ? v : Integer.toUnsignedLong(v);
                }
            }
            default -> {
                ValueLayout.OfLong s = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(order());
                for (int i = 0; i < count; i++) {
                    long v = src.get(s, srcOffset + 8L * i);
                    dst[dstIndex + i] = signed ? (double) v : unsignedToDouble(v);
                }
            }
        }
    }

    private static double unsignedToDouble(long v) {
        return v >= 0 ? (double) v : ((double) (v >>> 1)) * 2.0 + (v & 1);
    }
}
