package io.dask4j.comm.serialize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dask4j.comm.Frame;
import java.io.Serializable;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class SerializationTest {

    /** The test classes live in io.dask4j, which every allow-list allows. */
    private static final Deserializer DESERIALIZER = new Deserializer(ClassAllowList.builtInOnly());

    record Point(double x, double y) {
    }

    record Task(String key, List<Point> points, Map<String, Object> options) {
    }

    static final class Node {
        String name;
        Node next;
    }

    static class CustomError extends RuntimeException {
        CustomError(String message) {
            super(message);
        }
    }

    private static Object roundTrip(Object value) {
        Serialized s = Serialization.encode(value);
        // Simulate the wire: copy every frame into fresh bytes, as a remote reader would see them.
        List<Frame> copies = s.frames().stream().map(f -> Frame.of(f.toByteArray())).toList();
        return DESERIALIZER.decode(new Serialized(s.codec(), copies));
    }

    static List<Object> ordinaryValues() {
        return List.of("text", 42, 42L, 3.5, true, 'c', new BigDecimal("1.25"), new BigInteger("123456789012345678901234"),
                UUID.randomUUID(), LocalDate.of(2026, 12, 2), Duration.ofMillis(1500), Instant.ofEpochSecond(1_000_000),
                Optional.of("x"), new Point(1, 2), new Task("k", List.of(new Point(3, 4)), Map.of("retries", 3)),
                new ArrayList<>(List.of(1, 2, 3)), new HashMap<>(Map.of("a", 1)), new TreeMap<>(Map.of("b", 2, "a", 1)),
                new LinkedHashSet<>(List.of("z", "y")), List.of(), List.of(1), List.of(1, 2, 3), Set.of("a", "b"),
                Map.of("k", "v"), Map.of("k1", 1, "k2", 2, "k3", 3), Collections.unmodifiableList(new ArrayList<>(List.of(1))),
                Collections.unmodifiableMap(new HashMap<>(Map.of("u", 1))), Collections.unmodifiableSet(Set.of(5)),
                Arrays.asList("p", "q"), Collections.emptyList(), Collections.singletonList(9), new int[] {1, 2},
                new String[] {"a", null}, new Point[] {new Point(0, 1)});
    }

    @ParameterizedTest
    @MethodSource("ordinaryValues")
    void ordinaryValuesRoundTripThroughKryo(Object value) {
        Object back = roundTrip(value);
        assertThat(back).usingRecursiveComparison().isEqualTo(value);
        assertThat(Serialization.encode(value).codec()).isEqualTo(Serialization.KRYO);
    }

    @Test
    void nullRoundTrips() {
        assertThat(roundTrip(null)).isNull();
    }

    @Test
    void aSerializableLambdaCapturingStateRoundTripsAndRuns() {
        int offset = 10;
        Function<Integer, Integer> add = (Function<Integer, Integer> & Serializable) x -> x + offset;
        @SuppressWarnings("unchecked")
        Function<Integer, Integer> back = (Function<Integer, Integer>) roundTrip(add);
        assertThat(back.apply(5)).isEqualTo(15);
    }

    @Test
    void aSerializableMethodReferenceRoundTrips() {
        Supplier<String> hello = (Supplier<String> & Serializable) "hello"::toUpperCase;
        @SuppressWarnings("unchecked")
        Supplier<String> back = (Supplier<String>) roundTrip(hello);
        assertThat(back.get()).isEqualTo("HELLO");
    }

    @Test
    void aLambdaThatIsNotSerializableIsRefusedWithAHint() {
        Function<Integer, Integer> plain = x -> x + 1;
        assertThatThrownBy(() -> Serialization.encode(plain)).isInstanceOf(SerializationException.class)
                .hasMessageContaining("Serializable");
    }

    @Test
    void cyclesAndSharedReferencesSurvive() {
        Node a = new Node();
        Node b = new Node();
        a.name = "a";
        b.name = "b";
        a.next = b;
        b.next = a;
        Node back = (Node) roundTrip(a);
        assertThat(back.next.next).isSameAs(back);
        assertThat(back.next.name).isEqualTo("b");
    }

    @Test
    void exceptionsKeepTypeMessageAndStack() {
        CustomError error = new CustomError("boom");
        error.initCause(new IllegalStateException("root"));
        Throwable back = (Throwable) roundTrip(error);
        assertThat(back).isInstanceOf(CustomError.class).hasMessage("boom")
                .hasCauseInstanceOf(IllegalStateException.class);
        assertThat(back.getStackTrace()).isEqualTo(error.getStackTrace());
    }

    @Test
    void primitiveArraysTravelRawAndComeBackAsTheSameArrayWithoutACopy() {
        double[] doubles = {1, 2, 3};
        long[] longs = {4, 5};
        byte[] bytes = {6};
        assertThat(Serialization.encode(doubles).codec()).isEqualTo(Serialization.RAW_DOUBLES);
        assertThat(DESERIALIZER.decode(Serialization.encode(doubles))).isSameAs(doubles);
        assertThat(DESERIALIZER.decode(Serialization.encode(longs))).isSameAs(longs);
        assertThat(DESERIALIZER.decode(Serialization.encode(bytes))).isSameAs(bytes);
        assertThat(Serialization.encode(doubles).frames().getFirst().segment().heapBase()).containsSame(doubles);
    }

    @Test
    void primitiveArraysSurviveAByteCopyToo() {
        assertThat((double[]) roundTrip(new double[] {1.5, -2})).containsExactly(1.5, -2);
        assertThat((long[]) roundTrip(new long[] {Long.MAX_VALUE})).containsExactly(Long.MAX_VALUE);
    }

    @Test
    void buffersAndSegmentsTravelRaw() {
        ByteBuffer buffer = ByteBuffer.wrap(new byte[] {1, 2, 3, 4}).position(1);
        ByteBuffer back = (ByteBuffer) roundTrip(buffer);
        assertThat(back.remaining()).isEqualTo(3);
        assertThat(back.get(0)).isEqualTo((byte) 2);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment segment = arena.allocate(16).fill((byte) 7);
            Serialized s = Serialization.encode(segment);
            assertThat(s.codec()).isEqualTo(Serialization.RAW_SEGMENT);
            assertThat(DESERIALIZER.decode(s)).isSameAs(segment);
        }
    }

    @Test
    void garbageKryoBytesFailWithASerializationException() {
        assertThatThrownBy(() -> DESERIALIZER.decode(new Serialized(Serialization.KRYO, List.of(Frame.of(new byte[] {99, -1, 3})))))
                .isInstanceOf(SerializationException.class);
        assertThatThrownBy(() -> DESERIALIZER.decode(new Serialized("pickle", List.of(Frame.of(new byte[1])))))
                .isInstanceOf(SerializationException.class).hasMessageContaining("pickle");
    }

    @Test
    void manyThreadsCanEncodeAndDecodeAtOnce() throws Exception {
        List<CompletableFuture<Object>> all = IntStream.range(0, 200).mapToObj(i -> CompletableFuture.supplyAsync(
                () -> roundTrip(new Task("k" + i, List.of(new Point(i, i)), Map.of())),
                r -> Thread.ofVirtual().start(r))).toList();
        for (int i = 0; i < 200; i++) {
            assertThat(((Task) all.get(i).get(20, TimeUnit.SECONDS)).key()).isEqualTo("k" + i);
        }
    }
}
