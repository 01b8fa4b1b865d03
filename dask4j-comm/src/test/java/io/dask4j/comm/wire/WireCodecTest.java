package io.dask4j.comm.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dask4j.comm.Frame;
import io.dask4j.comm.Message;
import io.dask4j.comm.ProtocolException;
import java.lang.foreign.Arena;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageUnpacker;

class WireCodecTest {

    private final WireCodec codec = new WireCodec();

    private MessageHeader roundTrip(Message m, long max) {
        ByteBuffer encoded = ByteBuffer.wrap(codec.encodeHeaderToArray(m));
        int length = WireCodec.readPrelude(encoded, max);
        assertThat(length).isEqualTo(encoded.remaining());
        return WireCodec.decodeHeader(encoded, max);
    }

    @Test
    void everyAllowedFieldTypeRoundTrips() {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("null", null);
        fields.put("bool", true);
        for (long v : new long[] {0, 1, 127, 128, 255, 256, 65_535, 65_536, 1L << 32, Long.MAX_VALUE, -1, -32, -33,
                -128, -129, -32_768, -32_769, Integer.MIN_VALUE, Integer.MIN_VALUE - 1L, Long.MIN_VALUE}) {
            fields.put("long" + v, v);
        }
        fields.put("int", 7);
        fields.put("double", -2.5);
        fields.put("text", "ünïcødé " + "x".repeat(70_000));
        fields.put("short-text", "a".repeat(31));
        fields.put("bytes", new byte[300]);
        fields.put("list", List.of(1L, "two", List.of(3L)));
        fields.put("map", Map.of("k", Map.of("inner", false)));
        List<Object> longList = new ArrayList<>();
        for (long i = 0; i < 70_000; i++) {
            longList.add(i);
        }
        fields.put("longList", longList);
        MessageHeader h = roundTrip(Message.of("op", fields), Long.MAX_VALUE);
        assertThat(h.op()).isEqualTo("op");
        assertThat(h.fields()).hasSameSizeAs(fields);
        fields.forEach((k, v) -> {
            Object back = h.fields().get(k);
            if (v instanceof Integer i) {
                assertThat(back).isEqualTo(i.longValue());
            } else {
                assertThat(back).as(k).isEqualTo(v);
            }
        });
    }

    @Test
    void frameLengthsAndKindsAreCarried() {
        Message m = Message.of("f", Map.of(), List.of(Frame.of(new byte[3]), Frame.of(new double[2]), Frame.of(new long[1]),
                Frame.EMPTY));
        MessageHeader h = roundTrip(m, Long.MAX_VALUE);
        assertThat(h.frameLengths()).containsExactly(3, 16, 8, 0);
        assertThat(h.frameKinds()).containsExactly(WireCodec.KIND_BYTES, WireCodec.KIND_DOUBLES, WireCodec.KIND_LONGS,
                WireCodec.KIND_BYTES);
        assertThat(h.frameBytes()).isEqualTo(27);
        assertThat(WireCodec.allocateFrame(WireCodec.KIND_DOUBLES, 16).heapBase()).get().isInstanceOf(double[].class);
    }

    @Test
    void theHeaderIsStandardMsgpack() throws Exception {
        byte[] bytes = codec.encodeHeaderToArray(Message.of("hello", Map.of("n", 300L, "s", "x", "b", new byte[] {1}),
                List.of(Frame.of(new byte[5]))));
        try (MessageUnpacker u = MessagePack.newDefaultUnpacker(Arrays.copyOfRange(bytes, WireCodec.PRELUDE_BYTES, bytes.length))) {
            assertThat(u.unpackArrayHeader()).isEqualTo(4);
            assertThat(u.unpackString()).isEqualTo("hello");
            assertThat(u.unpackMapHeader()).isEqualTo(3);
            Map<String, Object> read = new LinkedHashMap<>();
            for (int i = 0; i < 3; i++) {
                String key = u.unpackString();
                read.put(key, u.unpackValue().toString());
            }
            assertThat(read).containsEntry("n", "300").containsEntry("s", "x");
            assertThat(u.unpackArrayHeader()).isEqualTo(1);
            assertThat(u.unpackLong()).isEqualTo(5);
            assertThat(u.unpackBinaryHeader()).isEqualTo(1);
        }
    }

    @Test
    void unsupportedFieldTypesAreRefusedByTheEncoderNamingTheField() {
        assertThatThrownBy(() -> codec.encodeHeader(Message.of("x", Map.of("when", new java.util.Date()))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("when");
        assertThatThrownBy(() -> codec.encodeHeader(Message.of("x", Map.of("m", Map.of(1, 2)))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a String");
    }

    @Test
    void aBadMagicOrVersionOrHugeHeaderIsAProtocolError() {
        assertThatThrownBy(() -> WireCodec.readPrelude(ByteBuffer.wrap(new byte[] {'G', 'E', 'T', ' ', 0, 0, 0, 1}), 100))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("magic");
        assertThatThrownBy(() -> WireCodec.readPrelude(ByteBuffer.wrap(new byte[] {'D', '4', 2, 0, 0, 0, 0, 1}), 100))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("version");
        assertThatThrownBy(() -> WireCodec.readPrelude(ByteBuffer.wrap(new byte[] {'D', '4', 1, 0, 0, 0, 0, 101}), 100))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("exceeds");
        assertThatThrownBy(() -> WireCodec.readPrelude(ByteBuffer.wrap(new byte[] {'D', '4', 1}), 100))
                .isInstanceOf(ProtocolException.class);
    }

    @Test
    void framesBeyondTheMessageLimitAreRefusedBeforeAnythingIsAllocated() {
        Message m = Message.of("big", Map.of(), List.of(Frame.of(new byte[1000]), Frame.of(new byte[1000])));
        assertThatThrownBy(() -> roundTrip(m, 1500)).isInstanceOf(ProtocolException.class).hasMessageContaining("limit");
    }

    @Test
    void truncatedOrLyingHeadersAreProtocolErrors() {
        byte[] full = codec.encodeHeaderToArray(Message.of("op", Map.of("k", "value")));
        for (int cut = WireCodec.PRELUDE_BYTES; cut < full.length; cut++) {
            ByteBuffer partial = ByteBuffer.wrap(full, WireCodec.PRELUDE_BYTES, cut - WireCodec.PRELUDE_BYTES);
            assertThatThrownBy(() -> WireCodec.decodeHeader(partial, Long.MAX_VALUE)).isInstanceOf(ProtocolException.class);
        }
        // An array32 claiming four billion elements in a 6-byte header.
        byte[] lying = {(byte) 0x94, (byte) 0xa1, 'x', (byte) 0xdd, (byte) 0xff, (byte) 0xff};
        assertThatThrownBy(() -> WireCodec.decodeHeader(ByteBuffer.wrap(lying), Long.MAX_VALUE)).isInstanceOf(ProtocolException.class);
        byte[] deep = new byte[200];
        Arrays.fill(deep, (byte) 0x91);   // fixarray(1) nested 200 deep
        assertThatThrownBy(() -> new MsgpackReader(ByteBuffer.wrap(deep)).value())
                .isInstanceOf(ProtocolException.class).hasMessageContaining("deeper");
        byte[] ext = {(byte) 0xd4, 1, 2};
        assertThatThrownBy(() -> new MsgpackReader(ByteBuffer.wrap(ext)).value()).isInstanceOf(ProtocolException.class);
        byte[] badUtf8 = {(byte) 0xa2, (byte) 0xc3, (byte) 0x28};
        assertThatThrownBy(() -> new MsgpackReader(ByteBuffer.wrap(badUtf8)).value())
                .isInstanceOf(ProtocolException.class).hasMessageContaining("UTF-8");
    }

    @Test
    void whatTheEncoderAcceptsTheDecoderReads() {
        int encodable = 0;
        int refused = 0;
        for (int depth = 60; depth <= 68; depth++) {
            Object nested = 1L;
            for (int i = 0; i < depth; i++) {
                nested = List.of(nested);
            }
            Message m = Message.of("deep", Map.of("v", nested));
            byte[] header;
            try {
                header = codec.encodeHeaderToArray(m);
            } catch (IllegalArgumentException e) {
                assertThatThrownBy(() -> WireCodec.checkEncodable(m)).as("inproc agrees at depth " + depth)
                        .isInstanceOf(IllegalArgumentException.class);
                refused++;
                continue;
            }
            WireCodec.checkEncodable(m);
            ByteBuffer b = ByteBuffer.wrap(header, WireCodec.PRELUDE_BYTES, header.length - WireCodec.PRELUDE_BYTES);
            assertThat(WireCodec.decodeHeader(b, Long.MAX_VALUE).fields()).as("depth " + depth).containsKey("v");
            encodable++;
        }
        assertThat(encodable).isPositive();
        assertThat(refused).isPositive();
        Message huge = Message.of("huge", Map.of("blob", new byte[WireCodec.MAX_HEADER_BYTES + 1]));
        assertThatThrownBy(() -> codec.encodeHeader(huge)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("frames");
    }

    @Test
    void aLyingStringOrBinaryLengthIsRefusedBeforeItsBufferIsAllocated() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        // str32 and bin32 claiming 2 GiB in a 5-byte value; the op position of a header, and a bare value.
        for (int type : new int[] {0xdb, 0xc6}) {
            byte[] value = {(byte) type, 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xf0};
            byte[] header = {(byte) 0x94, (byte) type, 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xf0};
            long before = threads.getCurrentThreadAllocatedBytes();
            assertThatThrownBy(() -> new MsgpackReader(ByteBuffer.wrap(value)).value())
                    .isInstanceOf(ProtocolException.class).hasMessageContaining("truncated");
            assertThatThrownBy(() -> WireCodec.decodeHeader(ByteBuffer.wrap(header), Long.MAX_VALUE))
                    .isInstanceOf(ProtocolException.class);
            assertThat(threads.getCurrentThreadAllocatedBytes() - before).isLessThan(1 << 20);
        }
    }

    @Test
    void aDoubleFrameWhoseLengthIsNotAMultipleOfEightIsRefused() {
        byte[] header = codec.encodeHeaderToArray(Message.of("d", Map.of(), List.of(Frame.of(new double[1]))));
        // The length 8 is the byte right before the kinds bin (c4 01 01); make it 7.
        int kindsAt = header.length - 3;
        assertThat(header[kindsAt - 1]).isEqualTo((byte) 8);
        header[kindsAt - 1] = 7;
        ByteBuffer b = ByteBuffer.wrap(header, WireCodec.PRELUDE_BYTES, header.length - WireCodec.PRELUDE_BYTES);
        assertThatThrownBy(() -> WireCodec.decodeHeader(b, Long.MAX_VALUE)).isInstanceOf(ProtocolException.class)
                .hasMessageContaining("multiple of 8");
    }

    @Test
    void aNativeFrameTravelsWithTheNativeKindAndArrivesAsBytesWhereNoPoolTakesIt() {
        try (Arena arena = Arena.ofConfined()) {
            Message m = Message.of("n", Map.of(), List.of(Frame.of(arena.allocate(24)), Frame.of(new double[3])));
            MessageHeader h = roundTrip(m, Long.MAX_VALUE);
            assertThat(h.frameKinds()).containsExactly(WireCodec.KIND_NATIVE, WireCodec.KIND_DOUBLES);
            assertThat(h.frameLengths()).containsExactly(24, 24);
            assertThat(WireCodec.allocateFrame(WireCodec.KIND_NATIVE, 24).heapBase()).get().isInstanceOf(byte[].class);
        }
    }

    @Test
    void anUnknownFrameKindIsRefused() {
        byte[] header = codec.encodeHeaderToArray(Message.of("k", Map.of(), List.of(Frame.of(new byte[3]))));
        // The kinds bin is the last 3 bytes (c4 01 00); announce kind 9 instead.
        assertThat(header[header.length - 3]).isEqualTo((byte) 0xc4);
        header[header.length - 1] = 9;
        ByteBuffer b = ByteBuffer.wrap(header, WireCodec.PRELUDE_BYTES, header.length - WireCodec.PRELUDE_BYTES);
        assertThatThrownBy(() -> WireCodec.decodeHeader(b, Long.MAX_VALUE)).isInstanceOf(ProtocolException.class)
                .hasMessageContaining("unknown frame kind 9");
    }
}
