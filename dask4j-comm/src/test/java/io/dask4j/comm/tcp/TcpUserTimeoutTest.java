package io.dask4j.comm.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.dask4j.comm.Address;
import io.dask4j.comm.CommOptions;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * Both ends of a comm get TCP_USER_TIMEOUT from their options, set on the right descriptor even when both ends
 * live in one process. What the option does to a frozen peer is {@link TcpFrozenPeerTest}'s.
 */
class TcpUserTimeoutTest {

    @Test
    void bothEndsOfACommGetTheDeadPeerTimeoutOfTheirOptions() throws Exception {
        CommOptions options = CommOptions.defaults().withDeadPeerTimeout(Duration.ofSeconds(45));
        try (LoopbackConnection connection = LoopbackConnection.open()) {
            SocketChannel dialled = connection.dialled();
            SocketChannel accepted = connection.accepted();
            assertThat(TcpUserTimeout.read(dialled)).as("the system's default before").hasValue(0);
            for (SocketChannel end : new SocketChannel[] {dialled, accepted}) {
                new TcpComm(end, Address.tcp("127.0.0.1", 1), Address.tcp("127.0.0.1", 2), options);
                assertThat(TcpUserTimeout.read(end)).hasValue(45_000);
            }
        }
    }

    @Test
    void connectionsAcceptedByAListenerInheritItsTimeoutWithoutALookupOfTheirOwn() throws Exception {
        CommOptions options = CommOptions.defaults().withDeadPeerTimeout(Duration.ofSeconds(37));
        java.util.concurrent.BlockingQueue<io.dask4j.comm.Comm> accepted = new java.util.concurrent.LinkedBlockingQueue<>();
        TcpListener listener = new TcpListener(TcpBackend.LOOPBACK_ANY_PORT, options, accepted::add);
        listener.start();
        try (SocketChannel dialled = SocketChannel.open(new java.net.InetSocketAddress("127.0.0.1",
                listener.listenAddress().port()))) {
            io.dask4j.comm.Comm comm = accepted.take();
            SocketChannel channel = comm instanceof TcpComm tcp ? tcp.channel() : null;
            assertThat(channel).isNotNull();
            assertThat(TcpUserTimeout.read(channel)).hasValue(37_000);
            assertThat(TcpUserTimeout.read(dialled)).as("the dialling end, made without TcpComm").hasValue(0);
            comm.abort();
        } finally {
            listener.stop();
        }
    }

    @Test
    void eachEndOfAConnectionWithinOneProcessIsFoundByItsOwnAddresses() throws Exception {
        // The two ends share both port numbers, swapped; a wrong match would set one end's value on the other.
        try (LoopbackConnection connection = LoopbackConnection.open()) {
            SocketChannel dialled = connection.dialled();
            SocketChannel accepted = connection.accepted();
            assertThat(TcpUserTimeout.apply(dialled, Duration.ofMillis(12_345))).isTrue();
            assertThat(TcpUserTimeout.apply(accepted, Duration.ofMillis(23_456))).isTrue();
            assertThat(TcpUserTimeout.read(dialled)).hasValue(12_345);
            assertThat(TcpUserTimeout.read(accepted)).hasValue(23_456);
        }
    }

    @Test
    void zeroLeavesTheSystemsRetransmissionTimeout() throws Exception {
        try (LoopbackConnection connection = LoopbackConnection.open()) {
            SocketChannel accepted = connection.accepted();
            new TcpComm(accepted, Address.tcp("127.0.0.1", 1), Address.tcp("127.0.0.1", 2),
                    CommOptions.defaults().withDeadPeerTimeout(Duration.ZERO));
            assertThat(TcpUserTimeout.read(accepted)).hasValue(0);
        }
    }

    @Test
    void connectionTableLinesAreMatchedOnBothAddressesInEitherFamily() {
        InetSocketAddress local = new InetSocketAddress("127.0.0.1", 40000);     // 0x9C40
        InetSocketAddress remote = new InetSocketAddress("10.1.2.3", 8786);      // 0x2252
        String v4 = "   3: 0100007F:9C40 0302010A:2252 01 00000000:00000000 00:00000000 00000000     0        0 81234 1 "
                + "0000000000000000 20 4 30 10 -1";
        String v6Mapped = "   0: 0000000000000000FFFF00000100007F:9C40 0000000000000000FFFF00000302010A:2252 01 "
                + "00000000:00000000 00:00000000 00000000     0        0 95678 1 0000000000000000 20 4 0 10 -1";
        String header = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode";
        assertThat(SocketDescriptors.inodeOf(v4, local, remote)).isEqualTo(81234);
        assertThat(SocketDescriptors.inodeOf(v6Mapped, local, remote)).isEqualTo(95678);
        assertThat(SocketDescriptors.inodeOf(v4, remote, local)).as("the other end").isZero();
        assertThat(SocketDescriptors.inodeOf(v4, local, new InetSocketAddress("10.1.2.4", 8786))).isZero();
        assertThat(SocketDescriptors.inodeOf(header, local, remote)).isZero();
    }

    @Test
    void aConnectionThisProcessDoesNotHoldIsNotFound() throws Exception {
        OptionalInt none = SocketDescriptors.find(new InetSocketAddress("127.0.0.1", 1),
                new InetSocketAddress("127.0.0.1", 2));
        assertThat(none).isEmpty();
    }
}
