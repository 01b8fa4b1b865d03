package io.dask4j.comm.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.dask4j.comm.Comm;
import io.dask4j.comm.CommClosedException;
import io.dask4j.comm.Frame;
import io.dask4j.comm.Listener;
import io.dask4j.comm.Message;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongFunction;
import org.junit.jupiter.api.Test;

/**
 * The push-mode part of the conformance suite ({@link Comm#receive}): order, pause and back-pressure, how a pushed
 * comm ends, a failing handler, and handlers that write. These run in {@link ReadMode#PUSH} only (the reading side
 * of the other tests already runs in both modes); a peer that only writes uses plain writes.
 */
public abstract class PushConformance extends FrameConformance {

    /** A connected pair: the connecting end and the listener's end. */
    private record Pair(Comm client, Comm server) {
    }

    private Pair pair() throws InterruptedException {
        BlockingQueue<Comm> accepted = new LinkedBlockingQueue<>();
        Listener listener = listen(listenAddress(), options(), comm -> accepted.add(track(comm)));
        Comm client = connect(listener.contactAddress(), options());
        return new Pair(client, take(accepted));
    }

    private void assumePushMode() {
        assumeTrue(readMode == ReadMode.PUSH, "a push-mode case");
    }

    private static Message seq(long i) {
        return Message.of("seq", Map.of("i", i));
    }

    /** Writes {@code count} messages made by {@code message} on a virtual thread. */
    private static CompletableFuture<Void> writeInBackground(Comm comm, int count, LongFunction<Message> message) {
        return CompletableFuture.runAsync(() -> {
            for (long i = 0; i < count; i++) {
                comm.write(message.apply(i));
            }
        }, virtualThreads());
    }

    @Test
    public void pushDeliversEveryMessageOnceInOrderAndThenOnCloseWhenThePeerCloses() throws Exception {
        assumePushMode();
        Pair p = pair();
        PushedMessages server = pushTo(p.server(), (h, m) -> { });
        for (long i = 0; i < 5_000; i++) {
            p.client().write(seq(i));
        }
        p.client().close();
        for (long i = 0; i < 5_000; i++) {
            assertThat(server.take().getLong("i")).isEqualTo(i);
        }
        assertThat(server.awaitClose()).isInstanceOf(CommClosedException.class);
        assertThat(server.closeCount()).isOne();
    }

    @Test
    public void messagesWrittenBeforeReceiveComeFirstAndInOrder() throws Exception {
        assumePushMode();
        Pair p = pair();
        for (long i = 0; i < 100; i++) {
            p.client().write(seq(i));
        }
        PushedMessages server = pushTo(p.server(), (h, m) -> { });
        for (long i = 100; i < 200; i++) {
            p.client().write(seq(i));
        }
        for (long i = 0; i < 200; i++) {
            assertThat(server.take().getLong("i")).isEqualTo(i);
        }
    }

    @Test
    public void pausingStopsDeliveryAndMakesThePeersWriterWaitWithoutLosingOrReorderingMessages() throws Exception {
        assumePushMode();
        Pair p = pair();
        PushedMessages server = pushTo(p.server(), (h, m) -> { });
        server.receiving().pause();
        int count = messagesThatFillAPausedPeer();
        Frame payload = Frame.of(new byte[bytesPerFillingMessage()]);
        CompletableFuture<Void> writer = writeInBackground(p.client(), count,
                i -> Message.of("seq", Map.of("i", i), List.of(payload)));
        // With back-pressure the writer waits for as long as the reader stays paused; without, it would finish.
        assertThatThrownBy(() -> writer.get(1, TimeUnit.SECONDS)).isInstanceOf(TimeoutException.class);
        assertThat(server.messageCount()).isZero();
        server.receiving().resume();
        for (long i = 0; i < count; i++) {
            assertThat(server.take().getLong("i")).isEqualTo(i);
        }
        writer.get(30, TimeUnit.SECONDS);
    }

    @Test
    public void pausesAndResumesFromInsideAndOutsideTheHandlerNeitherLoseNorReorderMessages() throws Exception {
        assumePushMode();
        Pair p = pair();
        PushedMessages server = pushTo(p.server(), (h, m) -> {
            if (m.getLong("i") % 37 == 0) {
                h.receiving().pause();
                Thread.ofVirtual().start(h.receiving()::resume);
            }
        });
        int count = 20_000;
        CompletableFuture<Void> writer = writeInBackground(p.client(), count, PushConformance::seq);
        for (long i = 0; i < count; i++) {
            assertThat(server.take().getLong("i")).isEqualTo(i);
        }
        writer.get(30, TimeUnit.SECONDS);
    }

    @Test
    public void closingLocallyEndsDeliveryWithOneOnClose() throws Exception {
        assumePushMode();
        Pair p = pair();
        PushedMessages server = pushTo(p.server(), (h, m) -> { });
        p.client().write(seq(1));
        assertThat(server.take().getLong("i")).isEqualTo(1);
        p.server().close();
        assertThatThrownBy(() -> read(p.client())).isInstanceOf(CommClosedException.class);
        assertThat(server.awaitClose()).isInstanceOf(CommClosedException.class);
        assertThat(server.closeCount()).isOne();
    }

    @Test
    public void abortingLocallyEndsDeliveryWithOneOnClose() throws Exception {
        assumePushMode();
        Pair p = pair();
        PushedMessages server = pushTo(p.server(), (h, m) -> { });
        p.client().write(seq(1));
        assertThat(server.take().getLong("i")).isEqualTo(1);
        p.server().abort();
        assertThat(server.awaitClose()).isInstanceOf(CommClosedException.class);
        p.server().abort();
        assertThat(server.closeCount()).isOne();
    }

    @Test
    public void thePeerAbortingEndsDeliveryWithOneOnClose() throws Exception {
        assumePushMode();
        Pair p = pair();
        PushedMessages server = pushTo(p.server(), (h, m) -> { });
        p.client().abort();
        assertThat(server.awaitClose()).isInstanceOf(CommClosedException.class);
        assertThat(server.closeCount()).isOne();
    }

    @Test
    public void closingAPausedCommStillEndsItWithOnClose() throws Exception {
        assumePushMode();
        Pair p = pair();
        PushedMessages server = pushTo(p.server(), (h, m) -> { });
        server.receiving().pause();
        p.client().write(seq(1));
        p.server().close();
        assertThat(server.awaitClose()).isInstanceOf(CommClosedException.class);
        assertThat(server.closeCount()).isOne();
    }

    @Test
    public void closingAPausedCommReleasesThePeersWriterWaitingForRoom() throws Exception {
        assumePushMode();
        Pair p = pair();
        PushedMessages server = pushTo(p.server(), (h, m) -> { });
        server.receiving().pause();
        Frame payload = Frame.of(new byte[bytesPerFillingMessage()]);
        CompletableFuture<Void> writer = writeInBackground(p.client(), messagesThatFillAPausedPeer(),
                i -> Message.of("seq", Map.of("i", i), List.of(payload)));
        assertThatThrownBy(() -> writer.get(1, TimeUnit.SECONDS)).isInstanceOf(TimeoutException.class);
        p.server().close();
        // The writer ends, by finishing into a close that drains (tcp) or by failing as closed, and never hangs.
        Throwable failure = writer.handle((ok, e) -> e).get(30, TimeUnit.SECONDS);
        if (failure != null) {
            assertThat(failure).hasCauseInstanceOf(CommClosedException.class);
        }
        assertThat(server.awaitClose()).isInstanceOf(CommClosedException.class);
    }

    @Test
    public void aHandlerThatThrowsAbortsTheCommAndItsExceptionIsTheCauseGivenToOnClose() throws Exception {
        assumePushMode();
        Pair p = pair();
        IllegalStateException boom = new IllegalStateException("boom");
        PushedMessages server = pushTo(p.server(), (h, m) -> {
            if (m.op().equals("boom")) {
                throw boom;
            }
        });
        p.client().write(Message.of("fine"));
        p.client().write(Message.of("boom"));
        assertThat(server.take().op()).isEqualTo("fine");
        assertThat(server.take().op()).isEqualTo("boom");
        assertThat(server.awaitClose()).isInstanceOf(CommClosedException.class).hasCause(boom);
        assertThat(p.server().isClosed()).isTrue();
        assertThatThrownBy(() -> read(p.client())).isInstanceOf(CommClosedException.class);
    }

    @Test
    public void handlersThatWriteFromInsideOnMessageRunAPingPongOnBothEndsToTheEnd() throws Exception {
        assumePushMode();
        Pair p = pair();
        long rounds = 10_000;
        pushTo(p.server(), (h, m) -> p.server().write(Message.of("pong", Map.of("i", m.getLong("i")))));
        PushedMessages client = pushTo(p.client(), (h, m) -> {
            long i = m.getLong("i");
            if (i < rounds) {
                p.client().write(Message.of("ping", Map.of("i", i + 1)));
            }
        });
        p.client().write(Message.of("ping", Map.of("i", 0L)));
        List<Long> seen = new ArrayList<>();
        for (long i = 0; i <= rounds; i++) {
            seen.add(client.take().getLong("i"));
        }
        assertThat(seen).hasSize((int) rounds + 1).isSorted().startsWith(0L).endsWith(rounds);
    }
}
