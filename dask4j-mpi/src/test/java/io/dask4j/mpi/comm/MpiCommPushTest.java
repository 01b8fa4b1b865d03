package io.dask4j.mpi.comm;

import io.dask4j.comm.CommClosedException;
import io.dask4j.comm.CommException;
import io.dask4j.comm.Message;
import io.dask4j.comm.MessageHandler;
import io.dask4j.comm.Receiving;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Push mode of {@link MpiComm} over the in-process fake MPI: delivery on the engine's pass, pause, writes, ends. */
@Timeout(30)
class MpiCommPushTest {

    private static final MpiTransportOptions LIMITS = MpiTransportOptions.defaults().withReadWindow(2048);

    @Test
    void messagesReachTheHandlerInOrderOnTheEngineThread() throws Exception {
        try (FakeRanks ranks = new FakeRanks(2, LIMITS)) {
            MpiComm[] pair = ranks.connect(1);
            Recorder recorder = new Recorder(m -> { });
            pair[1].receive(recorder);
            for (int i = 0; i < 100; i++) {
                pair[0].write(Message.of("m", Map.of("i", i)));
            }
            for (int i = 0; i < 100; i++) {
                assertThat(recorder.next().getInt("i")).isEqualTo(i);
            }
            assertThat(recorder.threads).allMatch(name -> name.equals("dask4j-mpi-progress"));
            assertThatThrownBy(pair[1]::read).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void messagesThatCameBeforeReceiveAreDeliveredFirst() throws Exception {
        try (FakeRanks ranks = new FakeRanks(2, LIMITS)) {
            MpiComm[] pair = ranks.connect(1);
            pair[0].write(Message.of("early"));
            Background.awaitTrue(() -> !pair[1].inboxEmpty());
            Recorder recorder = new Recorder(m -> { });
            pair[1].receive(recorder);
            pair[0].write(Message.of("late"));
            assertThat(recorder.next().op()).isEqualTo("early");
            assertThat(recorder.next().op()).isEqualTo("late");
        }
    }

    @Test
    void aPausedHandlerWithholdsCreditSoThePeersWriterWaits() throws Exception {
        try (FakeRanks ranks = new FakeRanks(2, LIMITS)) {
            MpiComm[] pair = ranks.connect(1);
            Receiving[] receiving = new Receiving[1];
            Recorder recorder = new Recorder(m -> receiving[0].pause()); // pauses at the first message
            receiving[0] = pair[1].receive(recorder);
            AtomicInteger written = new AtomicInteger();
            int total = 3 * 2048;
            Background writer = Background.run(() -> {
                for (int i = 0; i < total; i++) {
                    pair[0].write(Message.of("m", Map.of("i", i)));
                    written.incrementAndGet();
                }
            });
            // The writer stops at the window, asks for credit, gets it for the one message read before the pause,
            // sends one more and stops for good: the paused handler reads nothing, so it grants nothing.
            Background.awaitTrue(() -> written.get() == 2048 + 1 && writer.parked());
            assertThat(recorder.received).hasSize(1);
            recorder.onEach = m -> { };
            receiving[0].resume();
            for (int i = 0; i < total; i++) {
                assertThat(recorder.next().getInt("i")).isEqualTo(i);
            }
            writer.done.get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aHandlerMayWriteBackFromTheEngineThreadPastItsWindow() throws Exception {
        try (FakeRanks ranks = new FakeRanks(2, LIMITS)) {
            MpiComm[] pair = ranks.connect(1);
            // The server echoes every message from its handler; the client reads the echoes only at the end, so
            // the server's writes run past its read window: on the engine thread they must not wait.
            pair[1].receive(new Recorder(m -> pair[1].write(Message.of("echo", Map.of("i", m.getInt("i"))))));
            int total = 5000;
            for (int i = 0; i < total; i++) {
                pair[0].write(Message.of("m", Map.of("i", i)));
            }
            for (int i = 0; i < total; i++) {
                assertThat(pair[0].read().getInt("i")).isEqualTo(i);
            }
        }
    }

    @Test
    void theHandlerLearnsThePeersCloseOnceAfterTheLastMessage() throws Exception {
        try (FakeRanks ranks = new FakeRanks(2, LIMITS)) {
            MpiComm[] pair = ranks.connect(1);
            Recorder recorder = new Recorder(m -> { });
            pair[1].receive(recorder);
            pair[0].write(Message.of("last"));
            pair[0].close();
            assertThat(recorder.next().op()).isEqualTo("last");
            assertThat(recorder.closed.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(recorder.closes.get()).isEqualTo(1);
            assertThat(recorder.cause).isInstanceOf(CommClosedException.class);
            assertThat(recorder.received).isEmpty();
        }
    }

    @Test
    void aHandlerMayCloseItsCommFromTheEngineThread() throws Exception {
        try (FakeRanks ranks = new FakeRanks(2, LIMITS)) {
            MpiComm[] pair = ranks.connect(1);
            Recorder recorder = new Recorder(m -> {
                pair[1].write(Message.of("bye"));
                pair[1].close();
            });
            pair[1].receive(recorder);
            pair[0].write(Message.of("hello"));
            assertThat(recorder.closed.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(pair[0].read().op()).isEqualTo("bye"); // written before the close, so it arrives
            assertThatThrownBy(pair[0]::read).isInstanceOf(CommClosedException.class);
        }
    }

    @Test
    void aHandlerThatThrowsEndsItsCommAndHearsWhy() throws Exception {
        try (FakeRanks ranks = new FakeRanks(2, LIMITS)) {
            MpiComm[] pair = ranks.connect(1);
            Recorder recorder = new Recorder(m -> {
                throw new IllegalStateException("boom");
            });
            pair[1].receive(recorder);
            pair[0].write(Message.of("m"));
            assertThat(recorder.closed.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(recorder.cause).hasMessageContaining("boom");
            assertThatThrownBy(pair[0]::read).isInstanceOf(CommClosedException.class);
        }
    }

    /** Records what a handler got, where, and how often it heard of the end. */
    static final class Recorder implements MessageHandler {
        final LinkedBlockingQueue<Message> received = new LinkedBlockingQueue<>();
        final List<String> threads = new CopyOnWriteArrayList<>();
        final CountDownLatch closed = new CountDownLatch(1);
        final AtomicInteger closes = new AtomicInteger();
        volatile Consumer<Message> onEach;
        volatile CommException cause;

        Recorder(Consumer<Message> onEach) {
            this.onEach = onEach;
        }

        @Override
        public void onMessage(Message message) {
            threads.add(Thread.currentThread().getName());
            received.add(message);
            onEach.accept(message);
        }

        @Override
        public void onClose(CommException why) {
            cause = why;
            closes.incrementAndGet();
            closed.countDown();
        }

        Message next() throws InterruptedException {
            Message m = received.poll(10, TimeUnit.SECONDS);
            if (m == null) {
                throw new AssertionError("no message within 10 s");
            }
            return m;
        }
    }
}
