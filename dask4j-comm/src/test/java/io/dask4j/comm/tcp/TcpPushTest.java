package io.dask4j.comm.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.dask4j.comm.Address;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.Frame;
import io.dask4j.comm.Message;
import io.dask4j.comm.ProtocolException;
import io.dask4j.comm.conformance.PushedMessages;
import io.dask4j.comm.wire.WireCodec;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** tcp push mode against raw bytes: what malformed input does to a comm whose reader calls a handler. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TcpPushTest {

    private LoopbackConnection connection;
    private TcpComm comm;
    private PushedMessages handler;

    @BeforeEach
    void pushedCommOverARawSocket() throws IOException {
        connection = LoopbackConnection.open();
        comm = new TcpComm(connection.accepted(), Address.tcp("127.0.0.1", 1), Address.tcp("127.0.0.1", 2),
                CommOptions.defaults().withMaxMessageBytes(1 << 20));
        handler = PushedMessages.receive(comm);
    }

    @AfterEach
    void close() throws IOException {
        comm.abort();
        connection.close();
    }

    private void sendRaw(byte[] bytes) throws IOException {
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        while (buffer.hasRemaining()) {
            connection.dialled().write(buffer);
        }
    }

    @Test
    void garbageAfterAGoodMessageEndsAPushedCommWithOneOnCloseCarryingTheProtocolError() throws Exception {
        sendRaw(new WireCodec().encodeHeaderToArray(Message.of("fine", Map.of("n", 1L))));
        sendRaw(new byte[] {'D', '4', 1, 0, 0, 0, 0, 3, (byte) 0xc1, 0, 0});   // 0xc1 is never valid msgpack
        assertThat(handler.take().getLong("n")).isEqualTo(1L);
        assertThat(handler.awaitClose()).isInstanceOf(ProtocolException.class);
        assertThat(comm.isClosed()).isTrue();
        assertThat(handler.closeCount()).isOne();
        assertThat(handler.breaches()).isEmpty();
    }

    @Test
    void aMessageOverTheLimitEndsAPushedCommWithAProtocolErrorBeforeAllocating() throws Exception {
        // Before the handshake lifts it, the limit is 64 KiB: a header announcing a 1 MiB frame is refused.
        sendRaw(new WireCodec().encodeHeaderToArray(Message.of("big", Map.of(), List.of(Frame.of(new byte[1 << 20])))));
        assertThat(handler.awaitClose()).isInstanceOf(ProtocolException.class).hasMessageContaining("limit");
        assertThat(handler.messageCount()).isZero();
    }
}
