package io.dask4j.comm.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dask4j.comm.Address;
import io.dask4j.comm.AuthenticationException;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommClosedException;
import io.dask4j.comm.CommException;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.Comms;
import io.dask4j.comm.ConnectTimeoutException;
import io.dask4j.comm.Frame;
import io.dask4j.comm.HandshakeTimeoutException;
import io.dask4j.comm.Listener;
import io.dask4j.comm.Message;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The behaviours every comm backend must have, written once (after Dask's {@code test_comms.py}) and
 * run by a thin subclass per backend ({@code InprocConformanceTest}, {@code TcpConformanceTest}, and the
 * mpi module's). Subclasses say how to make addresses; the hooks for listening and connecting default
 * to {@link Comms} and may be overridden (e.g. to place peers on other ranks).
 *
 * <p>Payload cases live in the {@link FrameConformance} part of the suite, wire-specific ones in the
 * backend's own test class (raw-socket garbage for tcp). A backend for which a case cannot apply
 * overrides that test method with {@code @Disabled("why")}. Raw comms ({@link #connectRaw}) stand for
 * broken or hostile peers: they skip the handshake and speak its messages by hand.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class CommConformanceSuite extends PushConformance {

    @Test
    public void pingPongCarriesOpFieldsAndFrames() {
        Listener listener = echoListener(options());
        Comm client = connect(listener.contactAddress(), options());
        Message ping = Message.of("ping", Map.of("n", 42L, "text", "héllo", "list", List.of(1L, "two")),
                List.of(Frame.of(new byte[] {1, 2, 3})));
        client.write(ping);
        Message pong = read(client);
        assertThat(pong.op()).isEqualTo("ping");
        assertThat(pong.getLong("n")).isEqualTo(42L);
        assertThat(pong.getString("text")).isEqualTo("héllo");
        assertThat(pong.getList("list")).containsExactly(1L, "two");
        assertThat(pong.frame(0).toByteArray()).containsExactly(1, 2, 3);
    }

    @Test
    public void aFieldTheWireCannotCarryIsRefusedAndTheCommStaysUsable() {
        Listener listener = echoListener(options());
        Comm client = connect(listener.contactAddress(), options());
        assertThatThrownBy(() -> client.write(Message.of("bad", Map.of("when", new Object()))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("when");
        client.write(Message.of("good"));
        assertThat(read(client).op()).isEqualTo("good");
    }

    @Test
    public void bothEndsReportThePeerIdentityFromTheHandshake() throws Exception {
        BlockingQueue<Comm> accepted = new LinkedBlockingQueue<>();
        Listener listener = listen(listenAddress(), options().withIdentity("server-x"), accepted::add);
        Comm client = connect(listener.contactAddress(), options().withIdentity("client-y"));
        Comm server = take(accepted);
        assertThat(client.peerIdentity()).isEqualTo("server-x");
        assertThat(server.peerIdentity()).isEqualTo("client-y");
        assertThat(client.peerAddress().scheme()).isEqualTo(listener.contactAddress().scheme());
    }

    @Test
    public void hundredConcurrentClientsAreServedByOneListener() throws Exception {
        Listener listener = echoListener(options());
        List<CompletableFuture<Long>> replies = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            long id = i;
            replies.add(CompletableFuture.supplyAsync(() -> {
                Comm c = connect(listener.contactAddress(), options());
                c.write(Message.of("hi", Map.of("id", id)));
                long back = read(c).getLong("id");
                c.close();
                return back;
            }, virtualThreads()));
        }
        for (int i = 0; i < 100; i++) {
            assertThat(replies.get(i).get(30, TimeUnit.SECONDS)).isEqualTo(i);
        }
    }

    @Test
    public void manyMessagesArriveInTheOrderTheyWereWritten() throws Exception {
        Listener listener = echoListener(options());
        Comm client = connect(listener.contactAddress(), options());
        int count = 5_000;
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
            for (long i = 0; i < count; i++) {
                client.write(Message.of("seq", Map.of("i", i)));
            }
        }, virtualThreads());
        for (long i = 0; i < count; i++) {
            assertThat(read(client).getLong("i")).isEqualTo(i);
        }
        writer.get(30, TimeUnit.SECONDS);
    }

    @Test
    public void closeFlushesWhatWasWrittenBeforeThePeerSeesTheEnd() throws Exception {
        BlockingQueue<Comm> accepted = new LinkedBlockingQueue<>();
        Listener listener = listen(listenAddress(), options(), accepted::add);
        Comm client = connect(listener.contactAddress(), options());
        Comm server = take(accepted);
        for (long i = 0; i < 100; i++) {
            client.write(Message.of("m", Map.of("i", i)));
        }
        client.close();
        for (long i = 0; i < 100; i++) {
            assertThat(read(server).getLong("i")).isEqualTo(i);
        }
        assertThatThrownBy(() -> read(server)).isInstanceOf(CommClosedException.class);
    }

    @Test
    public void peerClosingFailsPendingAndLaterReads() throws Exception {
        BlockingQueue<Comm> accepted = new LinkedBlockingQueue<>();
        Listener listener = listen(listenAddress(), options(), accepted::add);
        Comm client = connect(listener.contactAddress(), options());
        Comm server = take(accepted);
        CompletableFuture<Message> pending = blockedIn(() -> read(client));
        server.close();
        assertThatThrownBy(() -> pending.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(CommClosedException.class);
        assertThatThrownBy(() -> read(client)).isInstanceOf(CommClosedException.class);
        assertThatThrownBy(() -> client.write(Message.of("late"))).isInstanceOf(CommClosedException.class);
    }

    @Test
    public void explicitCloseMakesReadsAndWritesFailOnBothEnds() throws Exception {
        BlockingQueue<Comm> accepted = new LinkedBlockingQueue<>();
        Listener listener = listen(listenAddress(), options(), accepted::add);
        Comm client = connect(listener.contactAddress(), options());
        Comm server = take(accepted);
        client.close();
        assertThat(client.isClosed()).isTrue();
        assertThatThrownBy(() -> read(client)).isInstanceOf(CommClosedException.class);
        assertThatThrownBy(() -> client.write(Message.of("x"))).isInstanceOf(CommClosedException.class);
        assertThatThrownBy(() -> read(server)).isInstanceOf(CommClosedException.class);
        assertThatThrownBy(() -> server.write(Message.of("x"))).isInstanceOf(CommClosedException.class);
        client.close();   // idempotent
        server.close();
    }

    @Test
    public void abortMakesBothEndsFailWithoutHanging() throws Exception {
        BlockingQueue<Comm> accepted = new LinkedBlockingQueue<>();
        Listener listener = listen(listenAddress(), options(), accepted::add);
        Comm client = connect(listener.contactAddress(), options());
        Comm server = take(accepted);
        CompletableFuture<Message> pending = CompletableFuture.supplyAsync(() -> read(server), virtualThreads());
        client.abort();
        assertThatThrownBy(() -> pending.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(CommClosedException.class);
        assertThatThrownBy(() -> client.write(Message.of("x"))).isInstanceOf(CommClosedException.class);
        assertThatThrownBy(() -> read(client)).isInstanceOf(CommClosedException.class);
        client.abort();
    }

    @Test
    public void closingALocalCommWakesItsOwnPendingRead() throws Exception {
        Listener listener = echoListener(options());
        Comm client = connect(listener.contactAddress(), options());
        CompletableFuture<Message> pending = blockedIn(() -> read(client));
        client.close();
        assertThatThrownBy(() -> pending.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(CommClosedException.class);
    }

    @Test
    public void connectToAnAddressNobodyListensOnFailsBetweenTimeoutAndTimeoutPlusOneSecond() {
        Duration timeout = Duration.ofMillis(500);
        Address dead = deadAddress();
        long start = System.nanoTime();
        assertThatThrownBy(() -> connect(dead, options().withConnectTimeout(timeout)))
                .isInstanceOf(ConnectTimeoutException.class).hasMessageContaining(dead.toString());
        long elapsedMs = (System.nanoTime() - start) / 1_000_000;
        assertThat(elapsedMs).isBetween(timeout.toMillis(), timeout.toMillis() + 1_000);
    }

    @Test
    public void connectRetriesUntilAListenerAppears() throws Exception {
        Address address = reusableAddress();
        // Blocked: waiting for an answer, or between two attempts (each fails: nobody listens yet).
        CompletableFuture<Comm> connecting = blockedIn(
                () -> connect(address, options().withConnectTimeout(Duration.ofSeconds(20))));
        assertThat(connecting).as("the connect waits for a listener").isNotDone();
        Listener listener = track(listen(address, options(), echo()));
        Comm client = connecting.get(20, TimeUnit.SECONDS);
        client.write(Message.of("late-bloomer"));
        assertThat(read(client).op()).isEqualTo("late-bloomer");
        assertThat(listener.listenAddress()).isEqualTo(address);
    }

    @Test
    public void stoppingAListenerMidAcceptMakesWaitingClientsFailFast() throws Exception {
        AtomicInteger handled = new AtomicInteger();
        Listener listener = listen(listenAddress(), options(), c -> handled.incrementAndGet());
        // A raw client that never says hello keeps the server side mid-handshake.
        Comm raw = connectRaw(listener.contactAddress(), options());
        assertThat(read(raw).op()).isEqualTo("dask4j-hello");
        CompletableFuture<Message> pending = blockedIn(() -> read(raw));
        long start = System.nanoTime();
        listener.stop();
        assertThatThrownBy(() -> pending.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(CommClosedException.class);
        assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(options().handshakeTimeout().toMillis());
        assertThat(handled).hasValue(0);
        assertThatThrownBy(() -> connect(listener.contactAddress(), options().withConnectTimeout(Duration.ofMillis(200))))
                .isInstanceOf(CommException.class);
    }

    @Test
    public void aTimedOutHandshakeNeverReachesTheHandlerAndTheListenerKeepsServing() throws Exception {
        CommOptions server = options().withHandshakeTimeout(Duration.ofMillis(300));
        BlockingQueue<CommException> failures = new LinkedBlockingQueue<>();
        AtomicInteger handled = new AtomicInteger();
        Listener listener = listen(listenAddress(), server, echoCounting(handled), failures::add);
        Comm silent = connectRaw(listener.contactAddress(), options());
        assertThat(take(failures)).isInstanceOf(HandshakeTimeoutException.class);
        assertThatThrownBy(() -> drainUntilClosed(silent)).isInstanceOf(CommClosedException.class);
        assertThat(handled).hasValue(0);
        assertServes(listener, options());
        assertThat(handled).hasValue(1);
    }

    @Test
    public void aSlowButTimelyHandshakeStillSucceeds() throws Exception {
        BlockingQueue<Comm> accepted = new LinkedBlockingQueue<>();
        Listener listener = listen(listenAddress(), options().withHandshakeTimeout(Duration.ofSeconds(5)), accepted::add);
        Comm raw = connectRaw(listener.contactAddress(), options());
        assertThat(read(raw).op()).isEqualTo("dask4j-hello");
        Thread.sleep(500);   // a slow peer, well within the handshake timeout: the delay is what this test is about
        raw.write(Message.of("dask4j-hello", Map.of("version", 1L, "identity", "slowpoke", "nonce", new byte[32],
                "auth", false)));
        Comm server = take(accepted);
        assertThat(server.peerIdentity()).isEqualTo("slowpoke");
        raw.write(Message.of("after-handshake"));
        assertThat(read(server).op()).isEqualTo("after-handshake");
    }

    @Test
    public void aWrongSecretFailsOnBothEndsNeverReachesTheHandlerAndTheListenerKeepsServing() throws Exception {
        BlockingQueue<CommException> failures = new LinkedBlockingQueue<>();
        AtomicInteger handled = new AtomicInteger();
        Listener listener = listen(listenAddress(), options().withSecret("right-secret-16-bytes"), echoCounting(handled), failures::add);
        assertThatThrownBy(() -> connect(listener.contactAddress(), options().withSecret("wrong-secret-16-bytes")))
                .isInstanceOf(AuthenticationException.class);
        assertThat(take(failures)).isInstanceOf(AuthenticationException.class);
        assertThat(handled).hasValue(0);
        assertServes(listener, options().withSecret("right-secret-16-bytes"));
        assertThat(handled).hasValue(1);
    }

    @Test
    public void aSecretOnOneSideOnlyIsRejectedOnBothEnds() throws Exception {
        BlockingQueue<CommException> failures = new LinkedBlockingQueue<>();
        Listener secured = listen(listenAddress(), options().withSecret("s3cret-of-16-bytes-or-more"), echo(), failures::add);
        assertThatThrownBy(() -> connect(secured.contactAddress(), options())).isInstanceOf(AuthenticationException.class);
        assertThat(take(failures)).isInstanceOf(AuthenticationException.class);

        Listener open = listen(listenAddress(), options(), echo(), failures::add);
        assertThatThrownBy(() -> connect(open.contactAddress(), options().withSecret("s3cret-of-16-bytes-or-more")))
                .isInstanceOf(AuthenticationException.class);
        assertThat(take(failures)).isInstanceOf(AuthenticationException.class);
    }

    @Test
    public void theServerRevealsNoProofToAPeerThatHasNotProvenItselfFirst() throws Exception {
        BlockingQueue<CommException> failures = new LinkedBlockingQueue<>();
        AtomicInteger handled = new AtomicInteger();
        CommOptions secured = options().withSecret("the-servers-secret-of-128-bits");
        Listener listener = listen(listenAddress(), secured, echoCounting(handled), failures::add);
        Comm raw = connectRaw(listener.contactAddress(), options());
        raw.write(Message.of("dask4j-hello", Map.of("version", 1L, "identity", "guesser", "nonce", new byte[32],
                "auth", true)));
        assertThat(raw.read().op()).isEqualTo("dask4j-hello");
        raw.write(Message.of("dask4j-auth", Map.of("mac", new byte[32])));   // a guess
        // The next message is the refusal: no server proof came before it, so there is nothing to test guesses against.
        Message answer = raw.read();
        assertThat(answer.op()).isEqualTo("dask4j-handshake-error");
        assertThat(answer.fields()).containsEntry("kind", "auth");
        assertThatThrownBy(() -> drainUntilClosed(raw)).isInstanceOf(CommClosedException.class);
        assertThat(take(failures)).isInstanceOf(AuthenticationException.class);
        assertThat(handled).hasValue(0);
        assertServes(listener, secured);
    }

    @Test
    public void aMatchingSecretAuthenticatesBothWays() {
        Listener listener = echoListener(options().withSecret("same-secret-on-both-ends"));
        Comm client = connect(listener.contactAddress(), options().withSecret("same-secret-on-both-ends"));
        client.write(Message.of("authed"));
        assertThat(read(client).op()).isEqualTo("authed");
    }

    @Test
    public void aPeerThatSkipsTheHandshakeGetsAProtocolErrorAndTheListenerKeepsServing() throws Exception {
        BlockingQueue<CommException> failures = new LinkedBlockingQueue<>();
        AtomicInteger handled = new AtomicInteger();
        Listener listener = listen(listenAddress(), options(), echoCounting(handled), failures::add);
        Comm raw = connectRaw(listener.contactAddress(), options());
        raw.write(Message.of("get-data", Map.of("keys", List.of("x"))));
        assertThat(take(failures)).isInstanceOf(io.dask4j.comm.ProtocolException.class);
        assertThat(handled).hasValue(0);
        assertServes(listener, options());
    }

    @Test
    public void aPeerSpeakingAnotherProtocolVersionIsRejected() throws Exception {
        BlockingQueue<CommException> failures = new LinkedBlockingQueue<>();
        Listener listener = listen(listenAddress(), options(), echo(), failures::add);
        Comm raw = connectRaw(listener.contactAddress(), options());
        raw.write(Message.of("dask4j-hello", Map.of("version", 99L, "identity", "future", "nonce", new byte[32],
                "auth", false)));
        assertThat(take(failures)).isInstanceOf(io.dask4j.comm.ProtocolException.class).hasMessageContaining("v99");
        assertThat(read(raw).op()).isEqualTo("dask4j-hello");
        assertThat(read(raw).op()).isEqualTo("dask4j-handshake-error");
    }

    @Test
    public void hundredListenersGetDistinctAddresses() {
        Set<Address> addresses = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            addresses.add(listen(listenAddress(), options(), echo()).listenAddress());
        }
        assertThat(addresses).hasSize(100);
    }

    @Test
    public void manyFailedConnectsLeaveNoThreadsBehind() throws Exception {
        CommOptions quick = options().withConnectTimeout(Duration.ofMillis(30));
        Address dead = deadAddress();
        failToConnect(dead, quick);   // warm up lazily started process-wide threads
        int before = ManagementFactory.getThreadMXBean().getThreadCount();
        for (int i = 0; i < 30; i++) {
            failToConnect(dead, quick);
        }
        long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (ManagementFactory.getThreadMXBean().getThreadCount() > before + 2 && System.nanoTime() < deadlineNs) {
            Thread.sleep(20);   // polls, bounded: exiting threads leave the count a little later
        }
        assertThat(ManagementFactory.getThreadMXBean().getThreadCount()).isLessThanOrEqualTo(before + 2);
    }

    private void failToConnect(Address dead, CommOptions quick) {
        assertThatThrownBy(() -> connect(dead, quick)).isInstanceOf(ConnectTimeoutException.class);
    }

    private void assertServes(Listener listener, CommOptions clientOptions) {
        Comm client = connect(listener.contactAddress(), clientOptions);
        client.write(Message.of("still-serving"));
        assertThat(read(client).op()).isEqualTo("still-serving");
    }

    private void drainUntilClosed(Comm comm) {
        while (true) {
            read(comm);
        }
    }

    private Consumer<Comm> echoCounting(AtomicInteger handled) {
        Consumer<Comm> echo = echo();
        return c -> {
            handled.incrementAndGet();
            echo.accept(c);
        };
    }
}
