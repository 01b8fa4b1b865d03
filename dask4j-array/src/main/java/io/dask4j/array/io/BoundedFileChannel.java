package io.dask4j.array.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A read-only file channel whose {@link #map} stops at the end of the file, given to jhdf in place of the one it
 * would open. A read-only mapping past the end of a file succeeds: its bytes in the last page read as zeros and
 * beyond it as a fault, so a chunk of a truncated file (or one whose index points past its end) read as zeros,
 * silently. Clamped to the file, the mapping comes back shorter than asked, which the reader notices (every chunk's
 * size is checked against its shape). Refusing the mapping would not do: jhdf then falls back to a read loop that
 * re-reads the same bytes until its buffer is full. Everything else is passed to the real channel. Used by one
 * thread, as jhdf uses its channel.
 */
final class BoundedFileChannel extends FileChannel {
    private final FileChannel ch;

    private BoundedFileChannel(FileChannel ch) {
        this.ch = ch;
    }

    /** {@code file} opened for reading. */
    static FileChannel open(Path file) throws IOException {
        return new BoundedFileChannel(FileChannel.open(file, StandardOpenOption.READ));
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
        long end = ch.size();
        if (position > end || size > end - position) {
            long from = Math.min(position, end);
            return ch.map(mode, from, end - from);
        }
        return ch.map(mode, position, size);
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        return ch.read(dst);
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        return ch.read(dsts, offset, length);
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
        return ch.read(dst, position);
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        return ch.write(src);
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        return ch.write(srcs, offset, length);
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
        return ch.write(src, position);
    }

    @Override
    public long position() throws IOException {
        return ch.position();
    }

    @Override
    public FileChannel position(long newPosition) throws IOException {
        ch.position(newPosition);
        return this;
    }

    @Override
    public long size() throws IOException {
        return ch.size();
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
        ch.truncate(size);
        return this;
    }

    @Override
    public void force(boolean metaData) throws IOException {
        ch.force(metaData);
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
        return ch.transferTo(position, count, target);
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
        return ch.transferFrom(src, position, count);
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) throws IOException {
        return ch.lock(position, size, shared);
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
        return ch.tryLock(position, size, shared);
    }

    @Override
    protected void implCloseChannel() throws IOException {
        ch.close();
    }
}
