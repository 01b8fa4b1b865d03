package io.dask4j.comm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MessageTest {

    private final Message m = Message.of("op", Map.of("s", "text", "n", 5L, "big", 1L << 40, "d", 2.5, "b", true,
            "bytes", new byte[] {1}, "list", List.of(1L), "map", Map.of("k", "v")), List.of(Frame.of(new byte[3])));

    @Test
    void typedGettersReturnTheFields() {
        assertThat(m.getString("s")).isEqualTo("text");
        assertThat(m.getLong("n")).isEqualTo(5);
        assertThat(m.getInt("n")).isEqualTo(5);
        assertThat(m.getDouble("d")).isEqualTo(2.5);
        assertThat(m.getBoolean("b")).isTrue();
        assertThat(m.getBytes("bytes")).containsExactly(1);
        assertThat(m.getList("list")).containsExactly(1L);
        assertThat(m.getMap("map")).containsEntry("k", "v");
        assertThat(m.frame(0).size()).isEqualTo(3);
        assertThat(m.frameBytes()).isEqualTo(3);
    }

    @Test
    void missingOrMistypedFieldsAreProtocolErrorsNamingThem() {
        assertThatThrownBy(() -> m.getString("absent")).isInstanceOf(ProtocolException.class).hasMessageContaining("absent");
        assertThatThrownBy(() -> m.getString("n")).isInstanceOf(ProtocolException.class).hasMessageContaining("'n'");
        assertThatThrownBy(() -> m.getInt("big")).isInstanceOf(ProtocolException.class).hasMessageContaining("int range");
        assertThatThrownBy(() -> m.frame(1)).isInstanceOf(ProtocolException.class);
    }

    @Test
    void messagesAreImmutableSnapshots() {
        Map<String, Object> fields = new HashMap<>(Map.of("a", 1L));
        Message snapshot = Message.of("x", fields);
        fields.put("b", 2L);
        assertThat(snapshot.has("b")).isFalse();
        assertThat(snapshot.with("b", 2L).getLong("b")).isEqualTo(2);
        assertThatThrownBy(() -> snapshot.fields().put("c", 3L)).isInstanceOf(UnsupportedOperationException.class);
    }
}
