package io.dask4j.comm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Releasing received frames: {@link Frame#release()} and {@link Message#release()}. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FrameReleaseTest {

    /** A frame as a transport would hand it out: a view in an arena of its own, closed on release. */
    private static Frame received(byte[] content, AtomicInteger releases) {
        Arena arena = Arena.ofShared();
        MemorySegment view = arena.allocate(content.length);
        MemorySegment.copy(MemorySegment.ofArray(content), 0, view, 0, content.length);
        return Frame.releasable(view, () -> {
            arena.close();
            releases.incrementAndGet();
        });
    }

    @Test
    void releasingAFrameTheUserBuiltIsANoOp() {
        Frame frame = Frame.of(new byte[] {1, 2, 3});
        frame.release();
        frame.release();
        assertThat(frame.isReleasable()).isFalse();
        assertThat(frame.isReleased()).isFalse();
        assertThat(frame.toByteArray()).containsExactly(1, 2, 3);
        try (Arena arena = Arena.ofConfined()) {
            Frame nat = Frame.of(arena.allocate(8));
            nat.release();
            assertThat(nat.segment().get(ValueLayout.JAVA_LONG, 0)).isZero();
        }
    }

    @Test
    void aReleasedFrameCannotBeReadAnyMoreNorThroughItsSlices() {
        AtomicInteger releases = new AtomicInteger();
        Frame frame = received(new byte[] {7, 8, 9, 10}, releases);
        MemorySegment slice = frame.segment().asSlice(1, 2);
        assertThat(frame.toByteArray()).containsExactly(7, 8, 9, 10);
        frame.release();
        assertThat(frame.isReleased()).isTrue();
        assertThatThrownBy(frame::toByteArray).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> slice.get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
        assertThat(frame.size()).isEqualTo(4);
    }

    @Test
    void releasingTwiceGivesTheMemoryBackOnce() {
        AtomicInteger releases = new AtomicInteger();
        Frame frame = received(new byte[16], releases);
        frame.release();
        frame.release();
        assertThat(releases).hasValue(1);
    }

    @Test
    void aReleaseThatFailsLeavesTheFrameUnreleasedAndReadable() {
        AtomicInteger attempts = new AtomicInteger();
        Frame frame = Frame.releasable(MemorySegment.ofArray(new byte[] {5}), () -> {
            if (attempts.incrementAndGet() == 1) {
                throw new IllegalStateException("in use");
            }
        });
        assertThatThrownBy(frame::release).isInstanceOf(IllegalStateException.class).hasMessage("in use");
        assertThat(frame.isReleased()).isFalse();
        assertThat(frame.toByteArray()).containsExactly(5);
        frame.release();
        assertThat(frame.isReleased()).isTrue();
        assertThat(attempts).hasValue(2);
    }

    @Test
    void releasingAMessageReleasesEachFrameAndSkipsPlainOnes() {
        AtomicInteger releases = new AtomicInteger();
        Message m = Message.of("r", Map.of(), List.of(received(new byte[8], releases), Frame.of(new double[] {1.5}),
                received(new byte[4], releases)));
        m.release();
        m.release();
        assertThat(releases).hasValue(2);
        assertThat(m.frame(1).toDoubleArray()).containsExactly(1.5);
        assertThatThrownBy(() -> m.frame(0).toByteArray()).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aFrameThatFailsToReleaseDoesNotStopTheOthers() {
        AtomicInteger releases = new AtomicInteger();
        Frame stuck = Frame.releasable(MemorySegment.ofArray(new byte[1]), () -> {
            throw new IllegalStateException("busy");
        });
        Message m = Message.of("r", Map.of(), List.of(stuck, received(new byte[8], releases)));
        assertThatThrownBy(m::release).isInstanceOf(IllegalStateException.class).hasMessage("busy");
        assertThat(releases).hasValue(1);
        assertThat(m.frame(1).isReleased()).isTrue();
    }

    @Test
    void framesAreEqualWhenTheirSegmentsAre() {
        byte[] bytes = {1, 2};
        assertThat(Frame.of(bytes)).isEqualTo(new Frame(MemorySegment.ofArray(bytes)))
                .hasSameHashCodeAs(Frame.of(bytes));
        assertThat(Frame.of(bytes)).isNotEqualTo(Frame.of(new byte[] {1, 2}));
        assertThat(Frame.releasable(MemorySegment.ofArray(bytes), () -> { })).isEqualTo(Frame.of(bytes));
    }

    @Test
    void writingAReceivedFrameOnOverInprocAndReleasingItLeavesThePeerItsOwnCopy() throws Exception {
        CommOptions options = CommOptions.fromEnvironment(Map.of()).withIdentity("release")
                .withConnectTimeout(Duration.ofSeconds(10));
        BlockingQueue<Comm> accepted = new LinkedBlockingQueue<>();
        Listener listener = Comms.listen(Address.inproc("release-*"), options, accepted::add);
        try (Comm client = Comms.connect(listener.contactAddress(), options)) {
            Comm server = accepted.poll(10, TimeUnit.SECONDS);
            AtomicInteger releases = new AtomicInteger();
            Message relayed = Message.of("relay", Map.of(), List.of(received(new byte[] {4, 5, 6}, releases)));
            client.write(relayed);
            relayed.release();
            Message got = server.read();
            assertThat(releases).hasValue(1);
            assertThat(got.frame(0).toByteArray()).containsExactly(4, 5, 6);
            assertThat(got.frame(0).isReleasable()).isFalse();
            server.abort();
        } finally {
            listener.stop();
        }
    }
}
