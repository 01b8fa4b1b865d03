package io.dask4j.comm.stats;

import io.dask4j.comm.Frame;
import io.dask4j.comm.Message;
import io.dask4j.comm.wire.WireCodec;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WireSizeTest {

    private static long encoded(Message m) {
        return new WireCodec().encodeHeader(m).limit() + m.frameBytes();
    }

    @Test
    void sizeEqualsTheEncodedHeaderPlusFramesForEveryHeaderType() {
        Map<String, Object> fields = new HashMap<>();
        fields.put("nil", null);
        fields.put("flag", true);
        for (long v : new long[]{0, 127, 128, 255, 256, 65_535, 65_536, (1L << 32) - 1, 1L << 32, -1, -32, -33, -128,
                -129, -32_768, -32_769, Integer.MIN_VALUE, Integer.MIN_VALUE - 1L}) {
            fields.put("long" + v, v);
        }
        fields.put("int", 70_000);
        fields.put("double", 1.5);
        fields.put("ascii", "hello");
        fields.put("text31", "x".repeat(31));
        fields.put("text32", "x".repeat(32));
        fields.put("text300", "y".repeat(300));
        fields.put("text70k", "z".repeat(70_000));
        fields.put("unicode", "héllo wörld ✓ 𝄞 \uD800 end");
        fields.put("bytes", new byte[300]);
        fields.put("bigbytes", new byte[70_000]);
        List<Object> list = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            list.add("key-" + i);
        }
        fields.put("list", list);
        fields.put("nested", Map.of("a", List.of(1L, 2L, Map.of("b", "c")), "d", new byte[3]));
        List<Object> big = new ArrayList<>();
        for (int i = 0; i < 70_000; i++) {
            big.add((long) i);
        }
        fields.put("big", big);
        Message m = Message.of("some-op", fields, List.of(Frame.of(new double[100]), Frame.of(new byte[5])));

        assertThat(WireSize.of(m)).isEqualTo(encoded(m));
    }

    @Test
    void anEmptyMessageIsPreludePlusATinyHeader() {
        Message m = Message.of("ping");
        assertThat(WireSize.of(m)).isEqualTo(encoded(m));
    }

    @Test
    void manyFramesCountTheirLengthsAndKinds() {
        List<Frame> frames = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            frames.add(Frame.of(new long[i]));
        }
        Message m = Message.of("frames", Map.of("n", 300L), frames);
        assertThat(WireSize.of(m)).isEqualTo(encoded(m));
    }

    @Test
    void sizingRefusesWhatTheEncoderRefusesWithTheSameMessage() {
        List<Message> refused = new ArrayList<>();
        refused.add(Message.of("x", Map.of("when", new java.util.Date())));
        refused.add(Message.of("x", Map.of("m", Map.of(1, 2))));
        refused.add(Message.of("x", Map.of("l", List.of(1L, List.of(new Object())))));
        for (int depth = 60; depth <= 68; depth++) {
            Object nested = 1L;
            for (int i = 0; i < depth; i++) {
                nested = List.of(nested);
            }
            Message m = Message.of("deep", Map.of("v", nested));
            try {
                assertThat(WireSize.of(m)).as("depth " + depth).isEqualTo(encoded(m));
            } catch (IllegalArgumentException e) {
                refused.add(m);
            }
        }
        assertThat(refused).hasSizeGreaterThan(3);   // some depths pass, the deepest do not
        for (Message m : refused) {
            Throwable byEncoder = org.assertj.core.api.Assertions.catchThrowable(() -> encoded(m));
            assertThat(byEncoder).as(m.fields().toString()).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> WireSize.of(m)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(byEncoder.getMessage());
        }
    }

    @Test
    void aMessageBeingWrittenIsSizedOnceAndForgottenWhenTheWriteEnds() {
        Message m = Message.of("op", Map.of("k", "v"));
        Message other = Message.of("op", Map.of("k", "v"));
        long n = WireSize.beginWrite(m);
        try {
            assertThat(WireSize.isBeingWritten(m)).isTrue();
            assertThat(WireSize.isBeingWritten(other)).isFalse();
            assertThat(WireSize.ofRemembered(m)).isEqualTo(n).isEqualTo(encoded(m));
        } finally {
            WireSize.endWrite();
        }
        assertThat(WireSize.isBeingWritten(m)).isFalse();
        assertThat(WireSize.ofRemembered(other)).isEqualTo(n);
    }
}
