package io.dask4j.comm.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dask4j.comm.Address;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommClosedException;
import io.dask4j.comm.CommException;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.Comms;
import io.dask4j.comm.FatalCommClosedException;
import io.dask4j.comm.Frame;
import io.dask4j.comm.Listener;
import io.dask4j.comm.Message;
import io.dask4j.comm.ProtocolException;
import io.dask4j.comm.wire.WireCodec;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/** tcp-only behaviours: what raw bytes on a socket do to a listener and to a comm. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TcpWireTest {

    private final CommOptions options = CommOptions.fromEnvironment(Map.of()).withGeneratedSecret().withIdentity("wire-test");
    private final BlockingQueue<CommException> failures = new LinkedBlockingQueue<>();
    private Listener listener;

    @AfterEach
    void stop() {
        if (listener != null) {
            listener.stop();
        }
    }

    private Listener echoListener(CommOptions serverOptions) {
        listener = Comms.listen(TcpBackend.LOOPBACK_ANY_PORT, serverOptions, comm -> {
            try {
                while (true) {
                    comm.write(comm.read());
                }
            } catch (CommClosedException e) {
                comm.abort();
            }
        }, failures::add);
        return listener;
    }

    private Socket rawSocket() throws IOException {
        Address a = listener.contactAddress();
        Socket s = new Socket();
        s.connect(new InetSocketAddress(a.host(), a.port()), 5_000);
        s.setSoTimeout(10_000);
        return s;
    }

    private CommException nextFailure() throws InterruptedException {
        CommException e = failures.poll(20, TimeUnit.SECONDS);
        assertThat(e).as("a handshake failure").isNotNull();
        return e;
    }

    private void assertStillServes() {
        try (Comm c = Comms.connect(listener.contactAddress(), options)) {
            c.write(Message.of("ok?"));
            assertThat(c.read().op()).isEqualTo("ok?");
        }
    }

    private static void assertDropped(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        try {
            while (in.read() >= 0) {
                // drain the listener's hello and error report until it hangs up
            }
        } catch (IOException reset) {
            // a reset is a drop too
        }
    }

    @Test
    void malformedBytesAreAProtocolErrorAndOnlyThatConnectionIsDropped() throws Exception {
        echoListener(options);
        try (Socket s = rawSocket()) {
            s.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(nextFailure()).isInstanceOf(ProtocolException.class).hasMessageContaining("magic");
            assertDropped(s);
        }
        assertStillServes();
    }

    @Test
    void anOutOfMemoryErrorSettingUpOneConnectionDropsItAndTheListenerKeepsAccepting() throws Exception {
        AtomicInteger accepted = new AtomicInteger();
        TcpListener raw = new TcpListener(TcpBackend.LOOPBACK_ANY_PORT, options, comm -> {
            if (accepted.incrementAndGet() == 1) {
                throw new OutOfMemoryError("simulated: Cannot reserve direct buffer memory");
            }
            comm.write(Message.of("served"));
        });
        listener = raw;
        raw.start();
        try (Socket first = rawSocket()) {
            assertThat(first.getInputStream().read()).as("the first connection is closed").isEqualTo(-1);
        }
        try (Socket second = rawSocket()) {
            assertThat(second.getInputStream().read()).as("the second is served: the wire's magic").isEqualTo('D');
        }
        assertThat(accepted).hasValue(2);
    }

    @Test
    void anOversizedLengthPrefixIsRejectedBeforeAllocating() throws Exception {
        echoListener(options);
        try (Socket s = rawSocket()) {
            s.getOutputStream().write(new byte[] {'D', '4', 1, 0, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xf0});
            assertThat(nextFailure()).isInstanceOf(ProtocolException.class).hasMessageContaining("exceeds");
            assertDropped(s);
        }
        assertStillServes();
    }

    @Test
    void aFrameLargerThanTheMessageLimitIsRejectedBeforeAllocating() throws Exception {
        echoListener(options.withMaxMessageBytes(1 << 20));
        ByteBuffer header = new WireCodec().encodeHeader(Message.of("big", Map.of(), List.of(Frame.of(new byte[2 << 20]))));
        try (Socket s = rawSocket()) {
            s.getOutputStream().write(header.array(), 0, header.limit());
            assertThat(nextFailure()).isInstanceOf(ProtocolException.class).hasMessageContaining("limit");
            assertDropped(s);
        }
        assertStillServes();
    }

    @Test
    void beforeTheHandshakeOnlySmallMessagesAreAcceptedWhateverTheConfiguredLimit() throws Exception {
        echoListener(options);   // the default limit is 4 GiB
        ByteBuffer header = new WireCodec().encodeHeader(Message.of("dask4j-hello", Map.of(),
                List.of(Frame.of(new byte[1 << 20]))));
        try (Socket s = rawSocket()) {
            s.getOutputStream().write(header.array(), 0, header.limit());
            assertThat(nextFailure()).isInstanceOf(ProtocolException.class).hasMessageContaining("limit");
        }
        assertStillServes();
    }

    @Test
    void liftingTheHandshakeLimitLetsLargeMessagesIn() throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
             Socket raw = new Socket("127.0.0.1", ((InetSocketAddress) server.getLocalAddress()).getPort());
             SocketChannel accepted = server.accept()) {
            TcpComm comm = new TcpComm(accepted, Address.tcp("127.0.0.1", 1), Address.tcp("127.0.0.1", 2),
                    CommOptions.defaults().withMaxMessageBytes(1L << 30));
            comm.liftHandshakeLimit(1L << 30);
            byte[] header = new WireCodec().encodeHeaderToArray(Message.of("big", Map.of(), List.of(Frame.of(new byte[1 << 20]))));
            raw.getOutputStream().write(header);
            raw.getOutputStream().write(new byte[1 << 20]);
            assertThat(comm.read().frame(0).size()).isEqualTo(1 << 20);
        }
    }

    @Test
    void aWrongWireVersionIsAProtocolError() throws Exception {
        echoListener(options);
        try (Socket s = rawSocket()) {
            s.getOutputStream().write(new byte[] {'D', '4', 9, 0, 0, 0, 0, 1, 0});
            assertThat(nextFailure()).isInstanceOf(ProtocolException.class).hasMessageContaining("version");
        }
        assertStillServes();
    }

    @Test
    void garbageAfterTheHandshakeFailsTheReaderWithAProtocolErrorAndClosesTheComm() throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
             Socket raw = new Socket("127.0.0.1", ((InetSocketAddress) server.getLocalAddress()).getPort());
             SocketChannel accepted = server.accept()) {
            TcpComm comm = new TcpComm(accepted, Address.tcp("127.0.0.1", 1), Address.tcp("127.0.0.1", 2),
                    CommOptions.defaults().withMaxMessageBytes(1 << 20));
            OutputStream out = raw.getOutputStream();
            byte[] valid = new WireCodec().encodeHeaderToArray(Message.of("fine", Map.of("n", 1L)));
            out.write(valid);
            out.write(new byte[] {'D', '4', 1, 0, 0, 0, 0, 3, (byte) 0xc1, 0, 0});   // 0xc1 is never valid msgpack
            assertThat(comm.read().getLong("n")).isEqualTo(1L);
            assertThatThrownBy(comm::read).isInstanceOf(ProtocolException.class);
            assertThat(comm.isClosed()).isTrue();
        }
    }

    @Test
    void aPeerHangingUpMidMessageIsAClosedCommNotAHang() throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
            Socket raw = new Socket("127.0.0.1", ((InetSocketAddress) server.getLocalAddress()).getPort());
            TcpComm comm = new TcpComm(server.accept(), Address.tcp("127.0.0.1", 1), Address.tcp("127.0.0.1", 2),
                    CommOptions.defaults().withMaxMessageBytes(1 << 20));
            byte[] message = new WireCodec().encodeHeaderToArray(Message.of("x", Map.of(), List.of(Frame.of(new byte[100]))));
            raw.getOutputStream().write(message);   // the header promises 100 frame bytes that never come
            raw.close();
            assertThatThrownBy(comm::read).isInstanceOf(CommClosedException.class).hasMessageContaining("middle");
        }
    }

    @Test
    void anUnknownHostIsFatalAndNotRetried() {
        long start = System.nanoTime();
        assertThatThrownBy(() -> Comms.connect(Address.tcp("no-such-host.invalid", 1), options.withConnectTimeout(Duration.ofSeconds(20))))
                .isInstanceOf(FatalCommClosedException.class).hasMessageContaining("no-such-host.invalid");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(15));
    }

    @Test
    void listeningTwiceOnOnePortFailsWithACommException() {
        echoListener(options);
        assertThatThrownBy(() -> Comms.listen(listener.listenAddress(), options, Comm::abort))
                .isInstanceOf(CommException.class).hasMessageContaining(listener.listenAddress().toString());
    }

    @Test
    void ipv6LoopbackWorksWhenAvailable() {
        Listener v6;
        try {
            v6 = Comms.listen(Address.parse("tcp://[::1]:0"), options, comm -> comm.write(comm.read()));
        } catch (CommException noIpv6) {
            return;   // no IPv6 loopback on this machine
        }
        try (Comm c = Comms.connect(v6.contactAddress(), options)) {
            assertThat(v6.contactAddress().toString()).startsWith("tcp://[::1]:");
            c.write(Message.of("v6"));
            assertThat(c.read().op()).isEqualTo("v6");
        } finally {
            v6.stop();
        }
    }

    /** Needs ~5 GiB of memory and about a minute here (fresh pages are slow); run with -Ddask4j.test.huge=true. */
    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    @EnabledIfSystemProperty(named = "dask4j.test.huge", matches = "true")
    void aFrameLargerThan2GiBArrivesIntact() {
        long size = (2L << 30) + 4097;
        long[] probes = {0, 1L << 31, size - 1};
        listener = Comms.listen(TcpBackend.LOOPBACK_ANY_PORT, options, comm -> {
            MemorySegment got = comm.read().frame(0).segment();
            comm.write(Message.of("probed", Map.of("size", got.byteSize(),
                    "bytes", Arrays.stream(probes).mapToObj(p -> (long) got.get(ValueLayout.JAVA_BYTE, p)).toList())));
        });
        try (Arena arena = Arena.ofConfined(); Comm c = Comms.connect(listener.contactAddress(), options)) {
            MemorySegment big = arena.allocate(size);
            for (long p : probes) {
                big.set(ValueLayout.JAVA_BYTE, p, (byte) (p % 127 + 1));
            }
            c.write(Message.of("huge", Map.of(), List.of(Frame.of(big))));
            Message back = c.read();
            assertThat(back.getLong("size")).isEqualTo(size);
            assertThat(back.getList("bytes")).containsExactlyElementsOf(
                    Arrays.stream(probes).mapToObj(p -> (long) (byte) (p % 127 + 1)).toList());
        }
    }
}
