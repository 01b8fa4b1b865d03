package io.dask4j.comm.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dask4j.comm.Address;
import io.dask4j.comm.Blocking;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.Frame;
import io.dask4j.comm.Message;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What a comm wrote before {@link TcpComm#close()} reaches the peer, whatever the peer had sent it. */
@Timeout(60)
class TcpCloseTest {
    private static final CommOptions OPTIONS = CommOptions.defaults().withMaxMessageBytes(1L << 30);

    private static TcpComm comm(SocketChannel channel) throws Exception {
        TcpComm c = new TcpComm(channel, Address.tcp("127.0.0.1", 1), Address.tcp("127.0.0.1", 2), OPTIONS);
        c.liftHandshakeLimit(1L << 30);
        return c;
    }

    @Test
    void aLargeLastMessageArrivesWholeThoughTheCloserLeftThePeersBytesUnread() throws Exception {
        for (int round = 0; round < 5; round++) {
            try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
                 SocketChannel dialled = SocketChannel.open(server.getLocalAddress());
                 SocketChannel accepted = server.accept()) {
                TcpComm closer = comm(accepted);
                TcpComm reader = comm(dialled);
                reader.write(Message.of("never-read", Map.of("n", 1L)));   // left unread in the closer's socket
                int bytes = 64 << 20;
                CompletableFuture<Message> received = CompletableFuture.supplyAsync(() -> {
                    try {
                        // A late reader is the case under test: the closer's write fills the socket and its
                        // close finds the data still queued.
                        Thread.sleep(300);
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                    return reader.read();
                }, Thread.ofVirtual()::start);
                closer.write(Message.of("last", Map.of(), List.of(Frame.of(new byte[bytes]))));
                closer.close();
                Message last = received.get(30, TimeUnit.SECONDS);
                assertThat(last.op()).isEqualTo("last");
                assertThat(last.frame(0).size()).isEqualTo(bytes);
                reader.close();
            }
        }
    }

    @Test
    void aReadUnderWayWhenTheCommClosesDeliversNothingMoreAndFailsOnceThePeerHasClosed() throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
             SocketChannel dialled = SocketChannel.open(server.getLocalAddress());
             SocketChannel accepted = server.accept()) {
            TcpComm local = comm(accepted);
            TcpComm peer = comm(dialled);
            CompletableFuture<Object> underWay = Blocking.blockedIn(() -> {
                try {
                    return local.read();
                } catch (RuntimeException e) {
                    return e;
                }
            });
            local.close();
            assertThat(local.isClosed()).isTrue();
            peer.write(Message.of("after-close", Map.of()));
            Thread.sleep(200);   // a window in which a wrong delivery of "after-close" or an early failure would show
            assertThat(underWay).as("still lingering: the peer has not closed").isNotDone();
            assertThatThrownBy(peer::read).as("the peer sees our end of stream")
                    .isInstanceOf(io.dask4j.comm.CommClosedException.class);
            peer.close();
            assertThat(underWay.get(10, TimeUnit.SECONDS)).isInstanceOf(io.dask4j.comm.CommClosedException.class)
                    .asString().contains("closed locally");
            assertThat(accepted.isOpen()).as("the socket closes with the peer's").isFalse();
            assertThatThrownBy(local::read).isInstanceOf(io.dask4j.comm.CommClosedException.class);
        }
    }

    @Test
    void anAbortCutsALingeringCloseShort() throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
             SocketChannel dialled = SocketChannel.open(server.getLocalAddress());
             SocketChannel accepted = server.accept()) {
            TcpComm local = comm(accepted);
            local.close();
            Thread.sleep(100);   // a window in which a close that did not wait for the peer would show
            assertThat(accepted.isOpen()).as("waiting for the peer, who has not closed").isTrue();
            local.abort();
            assertThat(accepted.isOpen()).isFalse();
        }
    }
}
