package io.dask4j.comm.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.dask4j.comm.Comm;
import io.dask4j.comm.Frame;
import io.dask4j.comm.Listener;
import io.dask4j.comm.Message;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import org.junit.jupiter.api.Test;

/** The payload part of the conformance suite: frames of every size and kind arrive intact and apart. */
public abstract class FrameConformance extends ConformanceSupport {

    @Test
    public void framesOfZeroOneAnd64KiBBytesArriveIntact() {
        Comm client = connect(echoListener(options()).contactAddress(), options());
        List<Frame> frames = List.of(Frame.of(new byte[0]), Frame.of(pattern(1, 7)), Frame.of(pattern(65_536, 11)));
        client.write(Message.of("sizes", Map.of(), frames));
        Message back = read(client);
        assertThat(back.frames()).hasSize(3);
        assertThat(back.frame(0).size()).isZero();
        assertThat(back.frame(1).toByteArray()).isEqualTo(pattern(1, 7));
        assertThat(back.frame(2).toByteArray()).isEqualTo(pattern(65_536, 11));
    }

    @Test
    public void aLargeFrameArrivesIntact() {
        Comm client = connect(echoListener(options()).contactAddress(), options());
        byte[] big = pattern(Math.toIntExact(largeFrameBytes()), 13);
        client.write(Message.of("big", Map.of("n", 1L), List.of(Frame.of(big))));
        Message back = read(client);
        assertThat(back.frame(0).size()).isEqualTo(big.length);
        assertThat(back.frame(0).segment().mismatch(MemorySegment.ofArray(big))).isEqualTo(-1L);
    }

    @Test
    public void aLargeFirstMessageWrittenAsSoonAsTheHandshakeEndsArrivesWhole() {
        // Each end may write once its own handshake has ended, which can be before the other end's has read the
        // last handshake message: a backend that limits messages before the handshake must not reject this one.
        Listener listener = echoListener(options());
        for (int i = 0; i < 40; i++) {
            Comm client = connect(listener.contactAddress(), options());
            byte[] first = pattern(1 << 20, i);
            client.write(Message.of("first", Map.of("i", (long) i), List.of(Frame.of(first))));
            Message back = read(client);
            assertThat(back.fields()).containsEntry("i", (long) i);
            assertThat(back.frame(0).segment().mismatch(MemorySegment.ofArray(first))).isEqualTo(-1L);
            client.close();
        }
    }

    @Test
    public void aMessageOfManyFramesArrivesIntactAndInOrder() {
        Comm client = connect(echoListener(options()).contactAddress(), options());
        List<Frame> frames = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            frames.add(Frame.of(pattern(i % 300, i)));
        }
        client.write(Message.of("many", Map.of(), frames));
        Message back = read(client);
        assertThat(back.frames()).hasSize(1_000);
        for (int i = 0; i < 1_000; i++) {
            assertThat(back.frame(i).toByteArray()).isEqualTo(pattern(i % 300, i));
        }
    }

    @Test
    public void doubleLongAndNativeFramesKeepTheirValues() {
        Comm client = connect(echoListener(options()).contactAddress(), options());
        double[] doubles = {1.5, -0.0, Double.NaN, Double.MAX_VALUE, 42};
        long[] longs = {Long.MIN_VALUE, -1, 0, 7, Long.MAX_VALUE};
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment nat = arena.allocate(100_000);
            for (int i = 0; i < 100_000; i++) {
                nat.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31));
            }
            client.write(Message.of("kinds", Map.of(), List.of(Frame.of(doubles), Frame.of(longs), Frame.of(nat))));
            Message back = read(client);
            assertThat(back.frame(0).toDoubleArray()).containsExactly(doubles);
            assertThat(back.frame(1).toLongArray()).containsExactly(longs);
            assertThat(back.frame(2).segment().mismatch(nat)).isEqualTo(-1L);
        }
    }

    @Test
    public void buffersOfDifferentMessagesNeverAlias() throws Exception {
        BlockingQueue<Comm> accepted = new LinkedBlockingQueue<>();
        Listener listener = listen(listenAddress(), options(), accepted::add);
        Comm client = connect(listener.contactAddress(), options());
        Comm server = take(accepted);
        for (int size : new int[] {16, 100_000}) {
            client.write(Message.of("a", Map.of(), List.of(Frame.of(pattern(size, 1)), Frame.of(pattern(size, 2)))));
            client.write(Message.of("b", Map.of(), List.of(Frame.of(pattern(size, 3)))));
            Message a = read(server);
            Message b = read(server);
            a.frame(0).segment().fill((byte) 0x55);
            a.frame(1).segment().fill((byte) 0x66);
            assertThat(b.frame(0).toByteArray()).isEqualTo(pattern(size, 3));
            assertThat(a.frame(1).toByteArray()).containsOnly((byte) 0x66);
        }
    }

    /**
     * Whatever the backend does with a released message (nothing, or giving pooled memory back), a released
     * frame never shows another message's bytes: it either still holds its own or throws
     * IllegalStateException. And the comm goes on carrying intact messages, native and heap ones.
     */
    @Test
    public void aReleasedReceivedFrameNeverShowsLaterBytesAndTheCommKeepsWorking() {
        Comm client = connect(echoListener(options()).contactAddress(), options());
        int size = 4 << 20;
        try (Arena arena = Arena.ofConfined()) {
            Frame[] released = new Frame[3];
            for (int round = 0; round < released.length; round++) {
                MemorySegment nat = arena.allocate(size); // inproc hands the peer this very memory: never reuse it
                MemorySegment.copy(MemorySegment.ofArray(pattern(size, round)), 0, nat, 0, size);
                client.write(Message.of("native", Map.of(), List.of(Frame.of(nat), Frame.of(pattern(100, round)))));
                Message back = read(client);
                assertThat(back.frame(0).segment().mismatch(nat)).isEqualTo(-1L);
                assertThat(back.frame(1).toByteArray()).isEqualTo(pattern(100, round));
                back.release();
                back.release();
                released[round] = back.frame(0);
                for (int earlier = 0; earlier <= round; earlier++) {
                    assertStillOwnOrGone(released[earlier], pattern(size, earlier));
                }
            }
        }
    }

    private static void assertStillOwnOrGone(Frame frame, byte[] own) {
        long mismatch;
        try {
            mismatch = frame.segment().mismatch(MemorySegment.ofArray(own));
        } catch (IllegalStateException released) {
            return;
        }
        assertThat(mismatch).as("first byte where a released frame differs from its own content").isEqualTo(-1L);
    }

    protected static byte[] pattern(int size, int seed) {
        byte[] bytes = new byte[size];
        for (int i = 0; i < size; i++) {
            bytes[i] = (byte) (i * 131 + seed * 7 + (i >>> 9));
        }
        return bytes;
    }
}
