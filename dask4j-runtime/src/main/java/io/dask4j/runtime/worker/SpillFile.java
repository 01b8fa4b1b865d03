package io.dask4j.runtime.worker;

import io.dask4j.comm.Frame;
import io.dask4j.comm.serialize.Serialized;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * One spilled value on disk: {@code "D4SP"}, version byte, codec name, frame count, frame sizes, the frames'
 * bytes, then a CRC32C of everything before it. Reading checks the length the header implies against the
 * file's before allocating anything, and the checksum before any byte reaches a deserializer, so a flipped
 * bit or a truncated file is a {@link SpillFileCorruptException}, never a wrong value. Stateless; callers
 * keep one thread per file.
 */
final class SpillFile {

    private static final int MAGIC = 0x50533444;   // "D4SP" little-endian
    private static final byte VERSION = 1;
    private static final int CHUNK = 1 << 16;
    private static final int MAX_FRAMES = 1 << 20;

    private SpillFile() {
    }

    /**
     * Writes {@code value}'s frames to {@code file} (created or replaced).
     *
     * @throws IOException when the file cannot be written in full (a full disk included); the caller removes it
     */
    static void write(Path file, Serialized value) throws IOException {
        byte[] codec = value.codec().getBytes(StandardCharsets.UTF_8);
        ByteBuffer header = ByteBuffer.allocate(4 + 1 + 2 + codec.length + 4 + 8 * value.frames().size())
                .order(ByteOrder.LITTLE_ENDIAN);
        header.putInt(MAGIC).put(VERSION).putShort((short) codec.length).put(codec).putInt(value.frames().size());
        for (Frame f : value.frames()) {
            header.putLong(f.size());
        }
        header.flip();
        CRC32C crc = new CRC32C();
        crc.update(header.duplicate());
        Files.createDirectories(file.getParent());
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            writeFully(ch, header);
            // Copy through a small buffer: views of double[]/long[] segments cannot become ByteBuffers.
            byte[] chunk = new byte[CHUNK];
            ByteBuffer buf = ByteBuffer.wrap(chunk);
            for (Frame f : value.frames()) {
                for (long off = 0; off < f.size(); off += chunk.length) {
                    int n = (int) Math.min(chunk.length, f.size() - off);
                    MemorySegment.copy(f.segment(), ValueLayout.JAVA_BYTE, off, chunk, 0, n);
                    crc.update(chunk, 0, n);
                    buf.clear().limit(n);
                    writeFully(ch, buf);
                }
            }
            ByteBuffer trailer = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt((int) crc.getValue()).flip();
            writeFully(ch, trailer);
        }
    }

    /**
     * Reads back what {@link #write} wrote.
     *
     * @throws SpillFileCorruptException when the file is shorter or longer than its header says, its header
     *     is not one {@link #write} makes, or its checksum does not match
     * @throws IOException when the file cannot be read at all (gone, unreadable)
     */
    static Serialized read(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long fileSize = ch.size();
            CRC32C crc = new CRC32C();
            ByteBuffer fixed = readChecked(ch, 4 + 1 + 2, crc, file);
            if (fixed.getInt() != MAGIC || fixed.get() != VERSION) {
                throw new SpillFileCorruptException(file, "not a spill file of this version");
            }
            int codecLength = Short.toUnsignedInt(fixed.getShort());
            if (7L + codecLength + 4 > fileSize) {
                throw new SpillFileCorruptException(file, "truncated in its header");
            }
            String codec = new String(readChecked(ch, codecLength, crc, file).array(), StandardCharsets.UTF_8);
            int count = readChecked(ch, 4, crc, file).getInt();
            if (count < 0 || count > MAX_FRAMES || 7L + codecLength + 4 + 8L * count + 4 > fileSize) {
                throw new SpillFileCorruptException(file, "frame count " + count + " does not fit its " + fileSize + " bytes");
            }
            ByteBuffer sizes = readChecked(ch, 8 * count, crc, file);
            long expected = 7L + codecLength + 4 + 8L * count + 4;
            long[] frameSizes = new long[count];
            for (int i = 0; i < count; i++) {
                frameSizes[i] = sizes.getLong();
                if (frameSizes[i] < 0 || frameSizes[i] > Integer.MAX_VALUE - 16) {
                    throw new SpillFileCorruptException(file, "frame " + i + " claims " + frameSizes[i] + " bytes");
                }
                expected += frameSizes[i];
            }
            if (expected != fileSize) {
                throw new SpillFileCorruptException(file, "header says " + expected + " bytes, the file has " + fileSize
                        + (expected > fileSize ? " (truncated)" : ""));
            }
            List<Frame> frames = new ArrayList<>(count);
            for (long size : frameSizes) {
                frames.add(Frame.of(MemorySegment.ofArray(readChecked(ch, (int) size, crc, file).array())));
            }
            int stored = readChecked(ch, 4, null, file).getInt();
            if (stored != (int) crc.getValue()) {
                throw new SpillFileCorruptException(file, String.format("checksum mismatch (stored %08x, computed %08x)",
                        stored, (int) crc.getValue()));
            }
            return new Serialized(codec, frames);
        }
    }

    /** {@code n} bytes from {@code ch}, added to {@code crc} when given. */
    private static ByteBuffer readChecked(FileChannel ch, int n, CRC32C crc, Path file) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(n).order(ByteOrder.LITTLE_ENDIAN);
        while (b.hasRemaining()) {
            if (ch.read(b) < 0) {
                throw new SpillFileCorruptException(file, "truncated");
            }
        }
        b.flip();
        if (crc != null) {
            crc.update(b.duplicate());
        }
        return b;
    }

    private static void writeFully(FileChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            ch.write(b);
        }
    }
}
