package io.dask4j.comm.wire;

import io.dask4j.comm.Frame;
import io.dask4j.comm.Message;
import io.dask4j.comm.ProtocolException;
import io.dask4j.comm.stats.WireSize;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The dask4j wire format of a {@link Message}, shared by byte-stream transports (tcp) and message
 * transports (mpi, which may send the header and each frame separately).
 *
 * <pre>
 *   prelude  8 bytes   'D' '4' version=1 flags=0, header length (u32, big-endian)
 *   header   msgpack   [op: str, fields: map, frame lengths: [int...], frame kinds: bin]
 *   frames   raw       each frame's bytes, back to back, no padding
 * </pre>
 *
 * The header is msgpack (schema'd, no objects: never Java serialization); frames are raw bytes, so a
 * {@code double[]} travels as its own memory. Decoding checks the header length and the announced frame
 * lengths against the limits <em>before</em> allocating anything; violations are {@link
 * ProtocolException}s.
 *
 * <p>An instance holds the reusable encoding buffer and is not thread-safe (one per writer); the static
 * decoding methods are thread-safe.
 */
public final class WireCodec {

    public static final int PRELUDE_BYTES = 8;
    public static final byte VERSION = 1;
    /** Headers are small; anything above this is treated as garbage whatever the message limit. */
    public static final int MAX_HEADER_BYTES = 64 << 20;
    /**
     * Frame kinds: what memory the receiver reads the frame into. A frame arrives in the kind of memory it
     * was sent from: a heap array of its type for the first three; off-heap memory for {@link #KIND_NATIVE}
     * where the transport can receive into it (mpi, see {@code InboundDemux}), a {@code byte[]} elsewhere.
     */
    public static final byte KIND_BYTES = 0;
    public static final byte KIND_DOUBLES = 1;
    public static final byte KIND_LONGS = 2;
    public static final byte KIND_NATIVE = 3;
    /** Largest Java array the receiver allocates; bigger frames go off-heap. */
    static final long MAX_ARRAY_LENGTH = Integer.MAX_VALUE - 8;
    private static final byte MAGIC_0 = 'D';
    private static final byte MAGIC_1 = '4';

    private final MsgpackWriter writer = new MsgpackWriter(512);

    /**
     * Encodes the prelude and header of {@code message}. The returned heap buffer (position 0, limit the
     * encoded length) is this codec's own and is valid until the next call.
     *
     * @throws IllegalArgumentException if a field holds a type the header cannot carry, nests deeper than a receiver
     *     reads, or the header exceeds {@link #MAX_HEADER_BYTES}
     */
    public ByteBuffer encodeHeader(Message message) {
        writer.reset();
        for (int i = 0; i < PRELUDE_BYTES; i++) {
            writer.raw((byte) 0);
        }
        writer.arrayHeader(4);
        writer.string(message.op());
        writer.mapHeader(message.fields().size());
        for (Map.Entry<String, Object> e : message.fields().entrySet()) {
            writer.string(e.getKey());
            writer.value(e.getValue(), e.getKey());
        }
        List<Frame> frames = message.frames();
        writer.arrayHeader(frames.size());
        for (Frame f : frames) {
            writer.integer(f.size());
        }
        writer.binaryHeader(frames.size());
        for (Frame f : frames) {
            writer.raw(kindOf(f));
        }
        int length = writer.position();
        if (length - PRELUDE_BYTES > MAX_HEADER_BYTES) {
            // Refused here, where the caller learns which message; a receiver would drop the whole connection.
            throw new IllegalArgumentException("the header of '" + message.op() + "' takes " + (length - PRELUDE_BYTES)
                    + " bytes, more than the " + MAX_HEADER_BYTES + " a header may; put large values in frames");
        }
        byte[] array = writer.array();
        array[0] = MAGIC_0;
        array[1] = MAGIC_1;
        array[2] = VERSION;
        array[3] = 0;
        writer.putIntAt(4, length - PRELUDE_BYTES);
        return ByteBuffer.wrap(array, 0, length);
    }

    /** A fresh array holding prelude and header; for transports that keep it past the next encode. */
    public byte[] encodeHeaderToArray(Message message) {
        ByteBuffer b = encodeHeader(message);
        return Arrays.copyOf(b.array(), b.limit());
    }

    /**
     * Reads the 8-byte prelude at {@code in}'s position (advancing it) and returns the header length.
     *
     * @throws ProtocolException on a wrong magic or version, or a header longer than the limits allow
     */
    public static int readPrelude(ByteBuffer in, long maxMessageBytes) {
        if (in.remaining() < PRELUDE_BYTES) {
            throw new ProtocolException("truncated prelude: " + in.remaining() + " bytes");
        }
        byte m0 = in.get();
        byte m1 = in.get();
        byte version = in.get();
        in.get();
        long length = in.order(ByteOrder.BIG_ENDIAN).getInt() & 0xffff_ffffL;
        if (m0 != MAGIC_0 || m1 != MAGIC_1) {
            if ((m0 == 0x16 || m0 == 0x15) && m1 == 0x03) {
                throw new ProtocolException(String.format("not a dask4j message: 0x%02x%02x opens a TLS record, so the "
                        + "peer speaks TLS: both ends must use tls:// addresses", m0 & 0xff, m1 & 0xff));
            }
            throw new ProtocolException(String.format("not a dask4j message: bad magic 0x%02x%02x", m0 & 0xff, m1 & 0xff));
        }
        if (version != VERSION) {
            throw new ProtocolException("unsupported wire format version " + version + " (this side speaks " + VERSION + ")");
        }
        if (length > Math.min(MAX_HEADER_BYTES, maxMessageBytes)) {
            throw new ProtocolException("announced header of " + length + " bytes exceeds the limit of "
                    + Math.min(MAX_HEADER_BYTES, maxMessageBytes));
        }
        return (int) length;
    }

    /**
     * Decodes a header from the remaining bytes of {@code header} (all of them must belong to it) and
     * checks that header plus frames fit in {@code maxMessageBytes}.
     */
    public static MessageHeader decodeHeader(ByteBuffer header, long maxMessageBytes) {
        int headerBytes = header.remaining();
        MsgpackReader r = new MsgpackReader(header);
        if (r.arrayHeader() != 4) {
            throw new ProtocolException("message header must be a 4-element msgpack array");
        }
        String op = r.string();
        if (!(r.value() instanceof Map<?, ?> rawFields)) {
            throw new ProtocolException("message fields must be a msgpack map");
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> fields = (Map<String, Object>) rawFields;
        int count = r.arrayHeader();
        long[] lengths = new long[count];
        long total = headerBytes;
        for (int i = 0; i < count; i++) {
            if (!(r.value() instanceof Long n) || n < 0) {
                throw new ProtocolException("frame length " + i + " of '" + op + "' is not a non-negative integer");
            }
            lengths[i] = n;
            total += n;
            if (total > maxMessageBytes || total < 0) {
                throw new ProtocolException("message '" + op + "' announces more than the limit of " + maxMessageBytes
                        + " bytes");
            }
        }
        if (!(r.value() instanceof byte[] kinds) || kinds.length != count) {
            throw new ProtocolException("frame kinds of '" + op + "' missing or not one per frame");
        }
        for (int i = 0; i < count; i++) {
            checkKind(kinds[i], lengths[i], op);
        }
        if (r.remaining() != 0) {
            throw new ProtocolException(r.remaining() + " stray bytes after the header of '" + op + "'");
        }
        return new MessageHeader(op, fields, lengths, kinds);
    }

    /**
     * Checks, without encoding, that every header field of {@code message} has a type the wire can carry;
     * transports that skip encoding (inproc) call it so that a message fails the same way everywhere. The check
     * is {@link WireSize#of}'s walk, which refuses what the encoder refuses.
     *
     * @throws IllegalArgumentException naming the first offending field
     */
    public static void checkEncodable(Message message) {
        WireSize.of(message);
    }

    /** What memory the receiver should read frame {@code f} into. */
    public static byte kindOf(Frame f) {
        if (f.segment().isNative()) {
            return KIND_NATIVE;
        }
        Object base = f.segment().heapBase().orElse(null);
        if (base instanceof double[] && f.size() % Double.BYTES == 0) {
            return KIND_DOUBLES;
        }
        if (base instanceof long[] && f.size() % Long.BYTES == 0) {
            return KIND_LONGS;
        }
        return KIND_BYTES;
    }

    /**
     * A fresh, exactly sized segment to receive a frame into: a heap array of the frame's kind (so a
     * {@code double[]} frame is read straight into a {@code double[]} and {@link Frame#toDoubleArray()}
     * returns it without a copy), or off-heap memory for frames too large for an array. {@link #KIND_NATIVE}
     * frames get a {@code byte[]} here: transports that pool native memory decide that themselves.
     */
    public static MemorySegment allocateFrame(byte kind, long length) {
        return switch (kind) {
            case KIND_DOUBLES -> length / Double.BYTES <= MAX_ARRAY_LENGTH
                    ? MemorySegment.ofArray(new double[(int) (length / Double.BYTES)]) : offHeap(length);
            case KIND_LONGS -> length / Long.BYTES <= MAX_ARRAY_LENGTH
                    ? MemorySegment.ofArray(new long[(int) (length / Long.BYTES)]) : offHeap(length);
            default -> length <= MAX_ARRAY_LENGTH ? MemorySegment.ofArray(new byte[(int) length]) : offHeap(length);
        };
    }

    private static MemorySegment offHeap(long length) {
        // Freed by the GC once the frame is unreachable; frames over 2 GiB are rare enough to not pool.
        return Arena.ofAuto().allocate(length, 8);
    }

    private static void checkKind(byte kind, long length, String op) {
        switch (kind) {
            case KIND_BYTES, KIND_NATIVE -> { }
            case KIND_DOUBLES, KIND_LONGS -> {
                if (length % 8 != 0) {
                    throw new ProtocolException("frame of '" + op + "' of kind " + kind + " has " + length
                            + " bytes, not a multiple of 8");
                }
            }
            default -> throw new ProtocolException("unknown frame kind " + kind + " in '" + op + "'");
        }
    }
}
