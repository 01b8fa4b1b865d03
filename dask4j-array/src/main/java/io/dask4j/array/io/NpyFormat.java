package io.dask4j.array.io;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * NumPy's {@code .npy} format (versions 1.0, 2.0 and 3.0): a magic string, a header that is a Python dict
 * literal ({@code descr}, {@code fortran_order}, {@code shape}), then the elements in one run. Parsing the
 * header is all there is to it, so it is done here rather than through a library. Stateless.
 */
public final class NpyFormat {
    private static final byte[] MAGIC = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y'};
    private static final Pattern DESCR = Pattern.compile("'descr'\\s*:\\s*'([^']*)'");
    private static final Pattern FORTRAN = Pattern.compile("'fortran_order'\\s*:\\s*(True|False)");
    private static final Pattern SHAPE = Pattern.compile("'shape'\\s*:\\s*\\(([^)]*)\\)");
    /** NumPy refuses headers longer than this when reading; so do we, before allocating. */
    private static final int MAX_HEADER_BYTES = 1 << 16;

    private NpyFormat() {
    }

    /** Reads the header of {@code file} and checks that the file holds all the data. */
    public static RawArray open(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] start = in.readNBytes(10);
            if (start.length < 10 || !java.util.Arrays.equals(start, 0, 6, MAGIC, 0, 6)) {
                throw new ArrayFileException(file, "not a .npy file (no \\x93NUMPY magic at its start)");
            }
            int major = start[6];
            int headerLength;
            int prefix;
            if (major == 1) {
                headerLength = ByteBuffer.wrap(start, 8, 2).order(ByteOrder.LITTLE_ENDIAN).getShort() & 0xffff;
                prefix = 10;
            } else if (major == 2 || major == 3) {
                byte[] more = in.readNBytes(2);
                byte[] len = {start[8], start[9], more.length > 0 ? more[0] : 0, more.length > 1 ? more[1] : 0};
                headerLength = ByteBuffer.wrap(len).order(ByteOrder.LITTLE_ENDIAN).getInt();
                prefix = 12;
            } else {
                throw new ArrayFileException(file, ".npy format version " + major + "." + start[7] + " is not supported (1.0 to 3.0 are)");
            }
            if (headerLength < 0 || headerLength > MAX_HEADER_BYTES) {
                throw new ArrayFileException(file, ".npy header length " + headerLength + " is out of range");
            }
            byte[] header = in.readNBytes(headerLength);
            if (header.length < headerLength) {
                throw new ArrayFileException(file, "truncated: the .npy header is cut short");
            }
            String text = new String(header, major == 3 ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1);
            return new RawArray(file.toString(), prefix + headerLength, shape(text, file), ElementType.parse(field(DESCR, text, file), file),
                    field(FORTRAN, text, file).equals("True")).checked();
        } catch (NoSuchFileException e) {
            throw new ArrayFileException(file, "no such file", e);
        } catch (IOException e) {
            throw new ArrayFileException(file, "reading the .npy header failed: " + e, e);
        }
    }

    private static String field(Pattern p, String header, Path file) {
        String key = p.pattern().split("'")[1];
        Matcher m = p.matcher(header);
        if (!m.find()) {
            throw new ArrayFileException(file, "the .npy header has no valid " + key + ": " + header.strip());
        }
        // NumPy keeps a repeated key's last value, the match above its first: a header that repeats a key is
        // refused rather than read as another array than NumPy reads.
        long times = Pattern.compile("'" + key + "'\\s*:").matcher(header).results().count();
        if (times > 1) {
            throw new ArrayFileException(file, "the .npy header gives '" + key + "' " + times + " times: " + header.strip());
        }
        return m.group(1);
    }

    private static ArrayShape shape(String header, Path file) {
        List<Long> dims = new ArrayList<>();
        for (String part : field(SHAPE, header, file).split(",")) {
            String t = part.strip().replace("L", "");
            if (!t.isEmpty()) {
                try {
                    dims.add(Long.parseLong(t));
                } catch (NumberFormatException e) {
                    throw new ArrayFileException(file, "the .npy shape has a bad dimension '" + t + "'");
                }
            }
        }
        return ArrayShape.of(dims.stream().mapToLong(Long::longValue).toArray(), file);
    }

    /**
     * The header NumPy would write for a C-order array of {@code shape} and {@code type} (version 1.0, padded
     * with spaces and a newline so the data starts at a multiple of 64 bytes).
     */
    public static byte[] header(ArrayShape shape, ElementType type) {
        String dict = "{'descr': '" + type.numpy() + "', 'fortran_order': False, 'shape': " + shape.numpy() + ", }";
        int unpadded = MAGIC.length + 2 + 2 + dict.length() + 1;
        int total = (unpadded + 63) / 64 * 64;
        StringBuilder sb = new StringBuilder(dict);
        sb.repeat(' ', total - unpadded).append('\n');
        byte[] text = sb.toString().getBytes(StandardCharsets.ISO_8859_1);
        ByteBuffer out = ByteBuffer.allocate(total).order(ByteOrder.LITTLE_ENDIAN);
        out.put(MAGIC).put((byte) 1).put((byte) 0).putShort((short) text.length).put(text);
        return out.array();
    }
}
