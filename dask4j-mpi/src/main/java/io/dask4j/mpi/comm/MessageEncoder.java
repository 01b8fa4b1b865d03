package io.dask4j.mpi.comm;

import io.dask4j.comm.Frame;
import io.dask4j.comm.Message;
import io.dask4j.comm.wire.WireCodec;
import io.dask4j.mpi.engine.BufferPool;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns messages of the mpi backend into {@link OutgoingMessage}s: the envelope and header in a pooled
 * native buffer, with the frames inline when the whole message fits one eager MPI message (one MPI message
 * per Comm message: the fastest path for small messages), else each frame as MPI messages of its own, sent
 * from the frame's own memory when it is native and large (no copy at all; the writer waits until MPI is
 * done with it) or from a pooled copy otherwise. Either way the write returns only when MPI no longer reads
 * the frames' memory (copies are made before it returns; zero-copy sends, chunked or not, are waited for),
 * so a reader may write a received message on and then release it. Copies in flight are bounded per comm by
 * the credit its peer granted ({@link CreditWindow}): without credit, the writer waits before copying.
 *
 * <p>Thread-safe: the header codec is per thread; writers of one comm are serialized by the comm.
 */
final class MessageEncoder {

    /** Native frames larger than this are sent from their own memory (the writer waits); smaller are copied. */
    static final long ZERO_COPY_BYTES = 64 << 10;

    private final BufferPool pool;
    private final int eagerBytes;
    private final long chunkBytes;
    private final ThreadLocal<WireCodec> codecs = ThreadLocal.withInitial(WireCodec::new);

    MessageEncoder(BufferPool pool, int eagerBytes, long chunkBytes) {
        this.pool = pool;
        this.eagerBytes = eagerBytes;
        this.chunkBytes = chunkBytes;
    }

    /** An encoded DATA message, and whether it sends straight from the caller's memory (then the writer waits). */
    record Prepared(OutgoingMessage message, boolean zeroCopy) {
    }

    Prepared data(MpiComm comm, Message message, boolean mayZeroCopy) {
        for (Frame frame : message.frames()) {
            if (!frame.segment().scope().isAlive()) {
                // e.g. a released received frame: its address may hold another message's bytes by now
                throw new IllegalStateException("cannot write " + frame + ": its memory is no longer alive");
            }
        }
        ByteBuffer header = codecs.get().encodeHeader(message);
        long headed = Envelope.BYTES + header.limit();
        long total = headed + message.frameBytes();
        boolean inline = total <= eagerBytes;
        List<MemorySegment> pooled = new ArrayList<>(2);
        MemorySegment envelopeBuffer = pool.acquire(inline ? total : headed);
        pooled.add(envelopeBuffer);
        MemorySegment envelope = envelopeBuffer.asSlice(0, inline ? total : headed);
        MemorySegment.copy(MemorySegment.ofBuffer(header), 0, envelope, Envelope.BYTES, header.limit());
        if (inline) {
            Envelope.write(envelope, Envelope.DATA, Envelope.FLAG_INLINE, comm.peerId(), comm.id());
            long offset = headed;
            for (Frame frame : message.frames()) {
                MemorySegment.copy(frame.segment(), 0, envelope, offset, frame.size());
                offset += frame.size();
            }
            return new Prepared(new OutgoingMessage(comm, comm.peerRank(), envelope, List.of(), pooled, pool), false);
        }
        List<MemorySegment> chunks = new ArrayList<>(message.frames().size());
        boolean zeroCopy = false;
        for (Frame frame : message.frames()) {
            MemorySegment data = frame.segment();
            long length = data.byteSize();
            if (length == 0) {
                continue;
            }
            if (!data.isNative() || length <= ZERO_COPY_BYTES || !mayZeroCopy) {
                MemorySegment copy = pool.acquire(length);
                pooled.add(copy);
                MemorySegment.copy(data, 0, copy, 0, length);
                data = copy.asSlice(0, length);
            } else {
                // The writer waits until MPI is done, so the memory outlives the send; a global-scope alias
                // lets whichever thread drives the engine pass memory of a confined arena to MPI.
                data = MemorySegment.ofAddress(data.address()).reinterpret(length);
                zeroCopy = true;
            }
            for (long offset = 0; offset < length; offset += chunkBytes) {
                chunks.add(data.asSlice(offset, Math.min(chunkBytes, length - offset)));
            }
        }
        Envelope.write(envelope, Envelope.DATA, (byte) 0, comm.peerId(), comm.id());
        return new Prepared(new OutgoingMessage(comm, comm.peerRank(), envelope, chunks, pooled, pool), zeroCopy);
    }

    /**
     * The MPI sends a write of {@code message} takes at most: the envelope, and each frame's chunks of at most
     * {@code chunkBytes} (one for an empty frame or inline frames, which send none: counting more
     * than is sent keeps {@link PeerSendOrder} on the safe side). Any thread.
     */
    static int mpiSends(Message message, long chunkBytes) {
        long sends = 1;
        for (Frame frame : message.frames()) {
            sends += Math.max(1, Math.ceilDiv(frame.size(), chunkBytes));
        }
        return (int) Math.min(sends, Integer.MAX_VALUE);
    }

    /** A CREDIT from comm {@code src} to the peer's comm {@code dst}: {@code credit}, or a request if null. */
    OutgoingMessage credit(int dest, int dst, int src, CreditWindow.Credit credit) {
        MemorySegment buffer = pool.acquire(Envelope.CREDIT_BYTES);
        MemorySegment envelope = buffer.asSlice(0, Envelope.CREDIT_BYTES);
        Envelope.writeCredit(envelope, dst, src, credit, credit == null);
        return new OutgoingMessage(null, dest, MpiTransport.TAG_CREDIT, envelope, List.of(), List.of(buffer), pool);
    }

    /** A control envelope (no header, no frames) from {@code comm} (may be null) to {@code dest}. */
    OutgoingMessage control(MpiComm comm, int dest, byte kind, int dst, int src) {
        MemorySegment buffer = pool.acquire(Envelope.BYTES);
        MemorySegment envelope = buffer.asSlice(0, Envelope.BYTES);
        Envelope.write(envelope, kind, dst, src);
        return new OutgoingMessage(comm, dest, envelope, List.of(), List.of(buffer), pool);
    }
}
