package io.dask4j.mpi.comm;

import io.dask4j.comm.ProtocolException;
import io.dask4j.comm.wire.MessageHeader;
import io.dask4j.comm.wire.WireCodec;
import io.dask4j.mpi.binding.Mpi;
import io.dask4j.mpi.engine.BufferPool;
import io.dask4j.mpi.engine.InboundRouter;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * Routes what the progress engine receives to the comms of an {@link MpiTransport}: envelopes to their comm
 * (or to a listener for CONNECT), and the frame messages that follow a DATA envelope into the memory of
 * their frames, tracked per source by a {@link FrameCursor} (MPI keeps one source's messages in order).
 *
 * <p>Where a frame lands: in the kind of memory it was sent from. Frames sent from Java arrays go straight
 * into a Java array of their kind (MPI writes into the array; a {@code double[]} sent arrives as a {@code
 * double[]} the reader uses as is, and the GC recycles the memory, which stays warm), up to {@link
 * MpiTransportOptions#heapFrameBytes}. Frames sent from native memory of at least {@link MpiTransportOptions#pooledFrameBytes} go to pooled
 * native memory (already touched: fresh pages cost 12-20 us per 4 KiB page on a small VM),
 * handed to the reader as a releasable {@link io.dask4j.comm.Frame}, see {@link BufferPool#lend}; so do
 * frames of any kind above {@link MpiTransportOptions#heapFrameBytes}. Pooled memory without an explicit release was
 * measured and lost: a view came back to the pool only after a GC, which off-heap memory does not provoke,
 * so a busy comm kept receiving into fresh pages and the 64 MiB ping-pong fell from ~5 GB/s to 0.1-0.7 GB/s.
 * Readers that release (write on, then release; or decode, then release) reuse the same warm buffers. While
 * more than {@link MpiTransportOptions#pooledBudgetBytes} are out in unreleased frames, native frames up to {@link
 * MpiTransportOptions#heapFrameBytes} fall back to heap arrays, so for them forgotten releases cost speed only. Frames above
 * {@link MpiTransportOptions#heapFrameBytes} cannot fall back (no Java array holds them) and are pooled whatever is out:
 * unreleased, they hold native memory until the GC finds them, and once the pool's GC trigger is passed each
 * new one makes the engine thread call {@code System.gc()} and wait up to 20 ms for a buffer to come back
 * ({@link BufferPool#acquire}).
 *
 * <p><b>Flow control.</b> Every DATA message is checked against the credit its comm granted ({@link CreditWindow}):
 * a writer waits for credit at its end, so a reader that falls behind stops only its own comm's writers, and
 * nothing is ever held back here (other comms from the same rank, and CONNECTs, keep flowing). A message beyond
 * the credit (a peer ignoring flow control, or more than a handshake's 64 KiB before the handshake opened the
 * window) ends the comm with a protocol error, its frames received into nothing and dropped.
 *
 * <p>Every method runs on the thread driving the engine, under its lock.
 */
final class InboundDemux implements InboundRouter {

    private final MpiTransportOptions limits;
    private final MpiTransport transport;
    private final BufferPool pool;
    private final FrameCursor[] cursors;

    InboundDemux(MpiTransport transport, BufferPool pool, int size, MpiTransportOptions limits) {
        this.transport = transport;
        this.limits = limits;
        this.pool = pool;
        this.cursors = new FrameCursor[size];
    }

    @Override
    public void onEager(int source, int tag, MemorySegment data) {
        if (tag == MpiTransport.TAG_ENVELOPE) {
            onEnvelope(source, data);
        } else if (tag == MpiTransport.TAG_FRAME) {
            FrameCursor cursor = cursors[source];
            MemorySegment target = cursor == null ? null : cursor.next(data.byteSize());
            if (target != null) {
                MemorySegment.copy(data, 0, target, 0, data.byteSize());
            }
            finishChunk(source, cursor, false);
        } else if (tag == MpiTransport.TAG_CREDIT) {
            onCredit(source, data);
        }
    }

    /** The peer's reader granted credit, or its writer asks for some; malformed or stale credits are dropped. */
    private void onCredit(int source, MemorySegment data) {
        try {
            if (Envelope.kind(data) != Envelope.CREDIT || data.byteSize() != Envelope.CREDIT_BYTES) {
                return;
            }
        } catch (ProtocolException e) {
            return;
        }
        MpiComm comm = transport.comm(Envelope.dst(data));
        if (comm != null && comm.peerRank() == source && comm.peerId() == Envelope.src(data)) {
            CreditWindow.Credit credit = Envelope.credit(data);
            if (credit == null) {
                comm.onCreditRequest();
            } else {
                comm.onCredit(credit);
            }
        }
    }

    @Override
    public Target onLarge(int source, int tag, long bytes) {
        if (tag == MpiTransport.TAG_ENVELOPE) {
            MemorySegment buffer = pool.acquire(bytes);
            MemorySegment view = buffer.asSlice(0, bytes);
            return new Target(view, rc -> {
                // A failed receive (the engine broke) left the buffer half written and perhaps still written
                // by MPI: neither routed nor returned to the pool.
                if (rc == Mpi.SUCCESS) {
                    onEnvelope(source, view);
                    pool.release(buffer);
                }
            }, true);
        }
        if (tag != MpiTransport.TAG_FRAME) {
            return null;
        }
        FrameCursor cursor = cursors[source];
        MemorySegment target = cursor == null ? null : cursor.next(bytes);
        if (target == null) {
            finishChunk(source, cursor, false);
            return null;
        }
        IncomingMessage message = cursor.message;
        MpiComm comm = cursor.comm;
        finishChunk(source, cursor, true);
        return new Target(target, rc -> {
            if (rc != Mpi.SUCCESS) {
                // The engine failed (RequestTable.failAll): the frame is half received, so the message must
                // never reach the reader, and its pooled memory must not be reused while MPI may write it.
                message.receiveFailed();
                comm.onPeerAborted("receiving from " + comm.peerAddress() + " failed (MPI error " + rc + ")");
            } else if (message.receiveDone()) {
                comm.onMessageComplete();
            }
        }, limits.blockingReceives() || !target.isNative());
    }

    @Override
    public void onEngineFailure(RuntimeException cause) {
        transport.onEngineFailure(cause);
    }

    private void finishChunk(int source, FrameCursor cursor, boolean posted) {
        if (cursor == null) {
            return;
        }
        if (posted) {
            cursor.message.receivePosted();
        }
        if (cursor.corrupt && cursor.comm != null) {
            cursor.comm.onPeerAborted("protocol error from " + cursor.comm.peerAddress() + ": frame of unexpected size");
        }
        if (cursor.done()) {
            cursors[source] = null;
            if (cursor.message != null && cursor.message.matchedAll()) {
                cursor.comm.onMessageComplete();
            }
        }
    }

    private void onEnvelope(int source, MemorySegment data) {
        FrameCursor due = cursors[source];
        if (due != null) {
            // A sender posts a message's envelope and frames together, so an envelope here means the MPI library
            // matched a later message of that rank before an earlier one. Open MPI 4.1's ob1 does so once 65536
            // later messages to a rank overtook one it held back (its 16-bit sequence numbers wrap; docs/status.md,
            // Known gaps). Routing on would put frames into the wrong message, and holding this envelope would
            // hang: fail like an MPI error (the engine fails, every comm closes with this reason).
            throw new IllegalStateException("the MPI library broke its message order: a message from rank " + source
                    + " was matched while frame " + (due.frame + 1) + " of " + due.lengths.length
                    + " of an earlier message from it was still due");
        }
        byte kind;
        try {
            kind = Envelope.kind(data);
        } catch (ProtocolException e) {
            return;
        }
        int dst = Envelope.dst(data);
        int src = Envelope.src(data);
        MpiComm comm = kind == Envelope.CONNECT ? null : transport.comm(dst);
        if (comm != null && comm.peerRank() != source) {
            comm = null;
        }
        switch (kind) {
            case Envelope.CONNECT -> transport.onConnect(source, dst, src);
            case Envelope.ACCEPT -> {
                if (comm != null && comm.state() == MpiComm.CONNECTING) {
                    comm.onAccepted(src);
                } else {
                    transport.reply(source, Envelope.ABORT, src, dst);
                }
            }
            case Envelope.REJECT -> {
                if (comm != null) {
                    comm.onRejected();
                }
            }
            case Envelope.DATA -> onData(source, comm != null && comm.peerId() == src ? comm : null, data);
            case Envelope.CLOSE -> {
                if (comm != null) {
                    comm.onPeerClosed();
                }
            }
            case Envelope.ABORT -> {
                if (comm != null) {
                    comm.onPeerAborted("peer " + comm.peerAddress() + " aborted the comm");
                }
            }
            default -> { }
        }
    }

    private void onData(int source, MpiComm comm, MemorySegment data) {
        long limit = comm == null ? Long.MAX_VALUE : comm.options().maxMessageBytes();
        MessageHeader header;
        boolean inline = Envelope.inline(data);
        long inlineOffset;
        try {
            ByteBuffer in = data.asSlice(Envelope.BYTES).asByteBuffer();
            int headerBytes = WireCodec.readPrelude(in, limit);
            if (headerBytes > in.remaining()) {
                throw new ProtocolException("truncated header in an mpi envelope");
            }
            header = WireCodec.decodeHeader(in.slice(in.position(), headerBytes), limit);
            inlineOffset = Envelope.BYTES + WireCodec.PRELUDE_BYTES + headerBytes;
            if (inline && inlineOffset + header.frameBytes() != data.byteSize()) {
                throw new ProtocolException("inline frames of '" + header.op() + "' do not fill the envelope");
            }
        } catch (ProtocolException e) {
            if (comm != null) {
                comm.onPeerAborted("protocol error from " + comm.peerAddress() + ": " + e.getMessage());
            }
            return;
        }
        boolean accepting = comm != null && comm.state() == MpiComm.OPEN;
        if (accepting && !comm.accept(CreditWindow.cost(header.frameBytes()))) {
            // Beyond the credit this comm granted (a peer that ignores flow control, or a large message before the
            // handshake opened the window): nothing is allocated, its frames are dropped, the comm ends.
            comm.onPeerAborted("protocol error from " + comm.peerAddress() + ": a message of " + header.frameBytes()
                    + " frame bytes beyond the credit this end granted");
            accepting = false;
        }
        if (inline) {
            if (accepting) {
                comm.enqueue(inlineMessage(header, data, inlineOffset));
            }
            return;
        }
        MemorySegment[] frames = new MemorySegment[header.frameCount()];
        MemorySegment[] targets = new MemorySegment[header.frameCount()];
        BufferPool.Loan[] loans = null;
        for (int i = 0; i < frames.length && accepting; i++) {
            long length = header.frameLengths()[i];
            if (pooled(header.frameKinds()[i], length)) {
                MemorySegment buffer = pool.acquire(length);
                BufferPool.Loan loan = pool.lend(buffer, length);
                // MPI writes through a global-scope alias: the view's arena is the reader's to close.
                targets[i] = buffer.asSlice(0, length);
                frames[i] = loan.view();
                loans = loans == null ? new BufferPool.Loan[frames.length] : loans;
                loans[i] = loan;
            } else {
                frames[i] = WireCodec.allocateFrame(header.frameKinds()[i], length);
                targets[i] = frames[i];
            }
        }
        IncomingMessage message = accepting ? new IncomingMessage(header, frames, loans) : null;
        FrameCursor cursor = new FrameCursor(comm, message, header.frameLengths(), targets, limits.chunkBytes());
        if (cursor.done()) {
            if (message != null) {
                message.matchedAll();
            }
        } else {
            cursors[source] = cursor;
        }
        if (message != null) {
            comm.enqueue(message);
        }
    }

    /** Whether a frame goes to pooled native memory (see the class comment) rather than a fresh array. */
    private boolean pooled(byte kind, long length) {
        if (length > limits.heapFrameBytes()) {
            return true;
        }
        return kind == WireCodec.KIND_NATIVE && length >= limits.pooledFrameBytes()
                && pool.lentBytes() + length <= limits.pooledBudgetBytes();
    }

    private static IncomingMessage inlineMessage(MessageHeader header, MemorySegment data, long offset) {
        MemorySegment[] frames = new MemorySegment[header.frameCount()];
        for (int i = 0; i < frames.length; i++) {
            long length = header.frameLengths()[i];
            frames[i] = WireCodec.allocateFrame(header.frameKinds()[i], length);
            MemorySegment.copy(data, offset, frames[i], 0, length);
            offset += length;
        }
        IncomingMessage message = new IncomingMessage(header, frames, null);
        message.matchedAll();
        return message;
    }
}
