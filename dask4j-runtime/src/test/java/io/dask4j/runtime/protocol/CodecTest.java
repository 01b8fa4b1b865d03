package io.dask4j.runtime.protocol;

import io.dask4j.comm.serialize.ClassAllowList;
import io.dask4j.comm.serialize.Deserializer;
import io.dask4j.runtime.task.KeyRef;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class CodecTest {

    private static final Deserializer DECODER = new Deserializer(ClassAllowList.builtInOnly());
    @Test
    void plainArgumentArraysRoundTripInTheCompactForm() {
        Object[] args = {1, 2L, 3.5, true, false, null, "text é", new KeyRef("k-1")};
        byte[] bytes = Codec.toBytes(args);
        assertThat(bytes[0]).isEqualTo(SimpleArgs.MAGIC);
        assertThat((Object[]) Codec.fromBytes(bytes, DECODER)).containsExactly(args);
    }

    @Test
    void otherValuesGoThroughTheSerializer() {
        Object[] args = {List.of(1, 2), Map.of("a", 1), new double[]{1, 2}};
        byte[] bytes = Codec.toBytes(args);
        assertThat(bytes[0]).isNotEqualTo(SimpleArgs.MAGIC);
        Object[] back = (Object[]) Codec.fromBytes(bytes, DECODER);
        assertThat(back[0]).isEqualTo(List.of(1, 2));
        assertThat(back[1]).isEqualTo(Map.of("a", 1));
        assertThat((double[]) back[2]).containsExactly(1, 2);
        assertThat(Codec.fromBytes(Codec.toBytes(new double[]{4, 5}), DECODER)).isEqualTo(new double[]{4, 5});
    }
}
