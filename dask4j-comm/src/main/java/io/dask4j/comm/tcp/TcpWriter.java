package io.dask4j.comm.tcp;

import io.dask4j.comm.Frame;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * The write half of a {@link TcpComm}: puts one encoded message on the channel and reports its progress.
 *
 * <p>The prelude, header and small frames are copied into one reused direct buffer and go out in one system call.
 * A large off-heap frame is written from its own memory with a gathering write (together with the pending header
 * bytes), never concatenated; a large heap frame is streamed through a pooled direct chunk (the single copy the JDK
 * would make anyway). Large frames go to the kernel in slices of at most {@link #WRITE_SLICE_BYTES} (by moving the
 * buffer's limit, not by copying): a blocking write returns only once the kernel holds all it was given, so without
 * slices the {@link WriteStallChecker} would see no progress for as long as a whole frame takes on a slow link.
 * Every system call that moves bytes is reported to the {@link WriteProgress}.
 *
 * <p><b>Threads.</b> One at a time: the holder of the comm's write lock.
 */
final class TcpWriter {
    /**
     * Most bytes of a frame handed to the kernel in one call: the grain at which the write-stall check sees progress
     * from a platform thread (a virtual thread's write returns whenever the kernel takes some bytes). Only a link
     * that moves less than this within the timeout is cut off: 4 MiB in 30 s is about 140 KB/s, in the shortest
     * timeout (11 s) about 380 KB/s. Smaller slices cost on fast links: over loopback, 1 MiB slices made 256 MiB
     * native writes about 9% slower, 4 MiB ones about 2%, within the noise. Heap frames have always gone out in
     * chunks of this size, the staging buffers'.
     */
    static final int WRITE_SLICE_BYTES = StagingBuffers.CHUNK_BYTES;

    private final StreamChannel channel;
    private final WriteProgress progress;
    private final ByteBuffer out = ByteBuffer.allocateDirect(TcpComm.IO_BUFFER_BYTES);
    private final MemorySegment outAll = MemorySegment.ofBuffer(out);
    private final ByteBuffer[] gather = new ByteBuffer[2];

    TcpWriter(StreamChannel channel, WriteProgress progress) {
        this.channel = channel;
        this.progress = progress;
    }

    /** Writes {@code header} (encoded, with its prelude) and then the bytes of {@code frames}. */
    void send(ByteBuffer header, List<Frame> frames) throws IOException {
        out.clear();
        put(MemorySegment.ofBuffer(header));
        for (Frame frame : frames) {
            MemorySegment segment = frame.segment();
            if (segment.byteSize() <= TcpComm.SMALL_FRAME_BYTES) {
                put(segment);
            } else if (segment.isNative()) {
                sendNative(segment);
            } else {
                sendHeap(segment);
            }
        }
        out.flip();
        writeFully(out);
    }

    /** Appends to the write buffer, flushing it whenever it fills. */
    private void put(MemorySegment source) throws IOException {
        long offset = 0;
        long size = source.byteSize();
        while (offset < size) {
            if (!out.hasRemaining()) {
                out.flip();
                writeFully(out);
                out.clear();
            }
            int n = (int) Math.min(out.remaining(), size - offset);
            MemorySegment.copy(source, offset, outAll, out.position(), n);
            out.position(out.position() + n);
            offset += n;
        }
    }

    private void sendNative(MemorySegment segment) throws IOException {
        for (long offset = 0; offset < segment.byteSize(); offset += TcpComm.MAX_SLICE_BYTES) {
            long n = Math.min(TcpComm.MAX_SLICE_BYTES, segment.byteSize() - offset);
            sendWithPending(segment.asSlice(offset, n).asByteBuffer());
        }
    }

    private void sendHeap(MemorySegment segment) throws IOException {
        ByteBuffer staging = StagingBuffers.take();
        try {
            MemorySegment stagingAll = MemorySegment.ofBuffer(staging);
            for (long offset = 0; offset < segment.byteSize(); offset += staging.capacity()) {
                int n = (int) Math.min(staging.capacity(), segment.byteSize() - offset);
                MemorySegment.copy(segment, offset, stagingAll, 0, n);
                staging.clear().limit(n);
                sendWithPending(staging);
            }
        } finally {
            StagingBuffers.give(staging);
        }
    }

    /** Writes what the write buffer holds and then {@code data}, a slice of it per gathering call. */
    private void sendWithPending(ByteBuffer data) throws IOException {
        int end = data.limit();
        out.flip();
        gather[0] = out;
        gather[1] = data;
        while (data.position() < end) {
            data.limit(data.position() + Math.min(WRITE_SLICE_BYTES, end - data.position()));
            while (data.hasRemaining()) {
                if (channel.write(gather) > 0) {
                    progress.advanced();
                }
            }
        }
        gather[1] = null;
        out.clear();
    }

    /** Writes the whole of {@code buffer}, never more than {@link TcpComm#IO_BUFFER_BYTES}: one slice at most. */
    private void writeFully(ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            if (channel.write(buffer) > 0) {
                progress.advanced();
            }
        }
    }
}
