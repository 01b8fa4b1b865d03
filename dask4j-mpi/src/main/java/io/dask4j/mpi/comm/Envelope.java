package io.dask4j.mpi.comm;

import io.dask4j.comm.ProtocolException;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The fixed 16-byte control prefix of every envelope message of the mpi backend.
 *
 * <pre>
 *   0  'M'      magic
 *   1  kind     CONNECT, ACCEPT, REJECT, DATA, CLOSE, ABORT, CREDIT
 *   2  flags    bit 0 INLINE: the frames follow the header inside this message
 *   3  0        reserved
 *   4  dst      the receiver's comm id (for CONNECT: the listener port)
 *   8  src      the sender's comm id
 *   12 aux      CREDIT: how many DATA messages the sender's reader has read since its last CREDIT; else 0
 *   16 ...      DATA only: the message header in {@link io.dask4j.comm.wire.WireCodec}'s format,
 *               then with INLINE the frames' bytes back to back
 * </pre>
 *
 * A CREDIT is {@value #CREDIT_BYTES} bytes: after the prefix, at 16 the bytes read since the last CREDIT (long), at
 * 24 the sender's receive window in bytes (long), at 32 in messages (int), 36 reserved; flag bit 1 OPEN says the
 * sender's handshake has opened its window, bit 2 REQUEST says the sender's writer waits for credit (then the rest
 * is 0). See {@link CreditWindow}. CREDIT travels with its own MPI tag ({@link MpiTransport#TAG_CREDIT}).
 * Little-endian; stateless helpers, thread-safe.
 */
final class Envelope {

    static final int BYTES = 16;
    static final byte MAGIC = 'M';
    static final byte CONNECT = 1;
    static final byte ACCEPT = 2;
    static final byte REJECT = 3;
    static final byte DATA = 4;
    static final byte CLOSE = 5;
    static final byte ABORT = 6;
    static final byte CREDIT = 7;
    static final byte FLAG_INLINE = 1;
    static final byte FLAG_OPEN = 2;
    static final byte FLAG_REQUEST = 4;
    static final int CREDIT_BYTES = 40;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private Envelope() {
    }

    static void write(MemorySegment out, byte kind, int dst, int src) {
        write(out, kind, (byte) 0, dst, src);
    }

    static void write(MemorySegment out, byte kind, byte flags, int dst, int src) {
        write(out, kind, flags, dst, src, 0);
    }

    static void write(MemorySegment out, byte kind, byte flags, int dst, int src, int aux) {
        out.set(ValueLayout.JAVA_BYTE, 0, MAGIC);
        out.set(ValueLayout.JAVA_BYTE, 1, kind);
        out.set(ValueLayout.JAVA_BYTE, 2, flags);
        out.set(ValueLayout.JAVA_BYTE, 3, (byte) 0);
        out.set(INT, 4, dst);
        out.set(INT, 8, src);
        out.set(INT, 12, aux);
    }

    /** A CREDIT granting {@code credit}, or (with {@code request}) asking the peer's reader for credit. */
    static void writeCredit(MemorySegment out, int dst, int src, CreditWindow.Credit credit, boolean request) {
        byte flags = (byte) ((request ? FLAG_REQUEST : 0) | (credit != null && credit.open() ? FLAG_OPEN : 0));
        write(out, CREDIT, flags, dst, src, credit == null ? 0 : credit.messages());
        out.set(LONG, 16, credit == null ? 0 : credit.bytes());
        out.set(LONG, 24, credit == null ? 0 : credit.windowBytes());
        out.set(INT, 32, credit == null ? 0 : credit.windowMessages());
        out.set(INT, 36, 0);
    }

    /** The credit a CREDIT envelope grants; null for a request (or a malformed one: check the size first). */
    static CreditWindow.Credit credit(MemorySegment in) {
        byte flags = in.get(ValueLayout.JAVA_BYTE, 2);
        if ((flags & FLAG_REQUEST) != 0) {
            return null;
        }
        return new CreditWindow.Credit(aux(in), in.get(LONG, 16), in.get(INT, 32), in.get(LONG, 24),
                (flags & FLAG_OPEN) != 0);
    }

    /** The kind of a received envelope, after checking its size and magic. */
    static byte kind(MemorySegment in) {
        if (in.byteSize() < BYTES || in.get(ValueLayout.JAVA_BYTE, 0) != MAGIC) {
            throw new ProtocolException("not an mpi backend envelope (" + in.byteSize() + " bytes)");
        }
        byte kind = in.get(ValueLayout.JAVA_BYTE, 1);
        if (kind < CONNECT || kind > CREDIT) {
            throw new ProtocolException("unknown mpi envelope kind " + kind);
        }
        return kind;
    }

    static boolean inline(MemorySegment in) {
        return (in.get(ValueLayout.JAVA_BYTE, 2) & FLAG_INLINE) != 0;
    }

    static int dst(MemorySegment in) {
        return in.get(INT, 4);
    }

    static int src(MemorySegment in) {
        return in.get(INT, 8);
    }

    static int aux(MemorySegment in) {
        return in.get(INT, 12);
    }

    static String kindName(byte kind) {
        return switch (kind) {
            case CONNECT -> "CONNECT";
            case ACCEPT -> "ACCEPT";
            case REJECT -> "REJECT";
            case DATA -> "DATA";
            case CLOSE -> "CLOSE";
            case ABORT -> "ABORT";
            case CREDIT -> "CREDIT";
            default -> "kind " + kind;
        };
    }
}
