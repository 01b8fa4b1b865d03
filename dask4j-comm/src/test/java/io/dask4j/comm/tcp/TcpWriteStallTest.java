package io.dask4j.comm.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.dask4j.comm.Address;
import io.dask4j.comm.CommClosedException;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.Frame;
import io.dask4j.comm.Message;
import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A write the peer stops taking fails after the write-stall timeout, not after the kernel's 15 minutes of
 * retransmissions; a peer that takes the bytes slowly but steadily is never cut off. The timeout here is shorter
 * than {@link CommOptions} allows (keepalive needs 11 s), through the comm's test constructor.
 */
@Timeout(120)
class TcpWriteStallTest {
    private static final Duration STALL_TIMEOUT = Duration.ofSeconds(2);
    /** Far beyond the timeout plus one check, so only a hang fails it. */
    private static final Duration HANG_BOUND = Duration.ofSeconds(30);
    private static final Address PEER = Address.tcp("127.0.0.1", 2);
    private static final CommOptions OPTIONS = CommOptions.defaults().withMaxMessageBytes(1L << 30);
    /** Small fixed socket buffers (no autotuning), so a few MiB fill them. */
    private static final int SOCKET_BUFFER_BYTES = 64 << 10;

    enum WriterThread { PLATFORM, VIRTUAL }

    private static TcpComm comm(SocketChannel channel, Duration stallTimeout) throws Exception {
        TcpComm c = new TcpComm(channel, Address.tcp("127.0.0.1", 1), PEER, OPTIONS, stallTimeout);
        c.liftHandshakeLimit(1L << 30);
        return c;
    }

    private static ServerSocketChannel listen() throws Exception {
        ServerSocketChannel server = ServerSocketChannel.open();
        server.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_BUFFER_BYTES);   // inherited by the accepted socket
        return server.bind(new InetSocketAddress("127.0.0.1", 0));
    }

    private static SocketChannel dial(ServerSocketChannel server) throws Exception {
        SocketChannel channel = SocketChannel.open();
        channel.setOption(StandardSocketOptions.SO_SNDBUF, SOCKET_BUFFER_BYTES);
        channel.connect(server.getLocalAddress());
        return channel;
    }

    /** Runs {@code action} on a daemon thread of the given kind; completes with what it threw, or null. */
    private static CompletableFuture<Throwable> failureOf(WriterThread kind, Runnable action) {
        CompletableFuture<Throwable> failure = new CompletableFuture<>();
        Runnable body = () -> {
            try {
                action.run();
                failure.complete(null);
            } catch (Throwable e) {
                failure.complete(e);
            }
        };
        switch (kind) {
            case PLATFORM -> Thread.ofPlatform().daemon().start(body);
            case VIRTUAL -> Thread.ofVirtual().start(body);
        }
        return failure;
    }

    @ParameterizedTest
    @EnumSource(WriterThread.class)
    void aWriteThePeerNeverReadsFailsAfterTheTimeoutAndSoDoesTheReader(WriterThread kind) throws Exception {
        try (ServerSocketChannel server = listen();
             SocketChannel dialled = dial(server);
             SocketChannel accepted = server.accept()) {
            TcpComm comm = comm(dialled, STALL_TIMEOUT);
            CompletableFuture<Throwable> readFailure = failureOf(WriterThread.VIRTUAL, comm::read);
            Message big = Message.of("big", Map.of(), List.of(Frame.of(new byte[16 << 20])));   // far more than the buffers hold

            CompletableFuture<Throwable> writeFailure = failureOf(kind, () -> comm.write(big));

            assertTimeoutPreemptively(HANG_BOUND, () -> {
                assertThat(writeFailure.get()).isInstanceOf(CommClosedException.class)
                        .hasMessageContaining("no write progress to " + PEER + " for 2 s: peer unresponsive");
                assertThat(readFailure.get()).isInstanceOf(CommClosedException.class)
                        .hasMessageContaining("no write progress to " + PEER);
            }, "the write to a peer that never reads must fail, not hang");
            assertThat(comm.isClosed()).isTrue();
            assertThat(WriteStallChecker.SHARED.isWatching(comm)).as("a closed comm leaves the checker").isFalse();
        }
    }

    @Test
    void aPeerReadingSlowlyButSteadilyKeepsALargeWriteGoingPastTheTimeout() throws Exception {
        try (ServerSocketChannel server = listen();
             SocketChannel dialled = dial(server);
             SocketChannel accepted = server.accept();
             Arena arena = Arena.ofShared()) {
            TcpComm comm = comm(dialled, STALL_TIMEOUT);
            long frameBytes = 64L << 20;   // about 6 s at the reader's pace: three timeouts and more
            Message big = Message.of("big", Map.of(), List.of(new Frame(arena.allocate(frameBytes))));
            AtomicLong received = new AtomicLong();
            Thread reader = Thread.ofPlatform().daemon().start(() -> readSlowly(accepted, received));

            long startNs = System.nanoTime();
            // On a platform thread, the strict case: its blocking writes return, and show progress, once per slice.
            assertTimeoutPreemptively(HANG_BOUND, () -> comm.write(big));
            long writeNs = System.nanoTime() - startNs;

            assertThat(Duration.ofNanos(writeNs)).as("the write outlasted the timeout, else this test shows nothing")
                    .isGreaterThan(STALL_TIMEOUT.multipliedBy(2));
            assertThat(comm.isClosed()).isFalse();
            await(() -> received.get() >= frameBytes);
            comm.abort();
            reader.join(TimeUnit.SECONDS.toMillis(10));
        }
    }

    /** 64 KiB every 5 ms (at most 13 MB/s, a slice in 0.3-0.4 s), until the end of the stream. */
    private static void readSlowly(SocketChannel channel, AtomicLong received) {
        ByteBuffer chunk = ByteBuffer.allocateDirect(64 << 10);
        try {
            while (true) {
                chunk.clear();
                while (chunk.hasRemaining()) {
                    int n = channel.read(chunk);
                    if (n < 0) {
                        return;
                    }
                    received.addAndGet(n);
                }
                Thread.sleep(5);
            }
        } catch (Exception endOfTest) {
            // The comm was aborted or the channel closed: the test is over.
        }
    }

    @Test
    void aZeroDeadPeerTimeoutTurnsTheCheckOff() throws Exception {
        try (ServerSocketChannel server = listen();
             SocketChannel dialled = dial(server);
             SocketChannel accepted = server.accept()) {
            TcpComm off = new TcpComm(dialled, Address.tcp("127.0.0.1", 1), PEER, OPTIONS.withDeadPeerTimeout(Duration.ZERO));
            TcpComm on = new TcpComm(accepted, Address.tcp("127.0.0.1", 1), PEER, OPTIONS);
            assertThat(WriteStallChecker.SHARED.isWatching(off)).isFalse();
            assertThat(WriteStallChecker.SHARED.isWatching(on)).isTrue();
            on.abort();
            off.abort();
        }
    }

    private static void await(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertThat(deadlineNs - System.nanoTime()).as("condition not met in time").isPositive();
            Thread.sleep(10);
        }
    }
}
