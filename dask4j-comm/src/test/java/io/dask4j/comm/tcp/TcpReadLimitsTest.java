package io.dask4j.comm.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dask4j.comm.Address;
import io.dask4j.comm.CommClosedException;
import io.dask4j.comm.CommLimits;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.Frame;
import io.dask4j.comm.Message;
import io.dask4j.comm.ProtocolException;
import io.dask4j.comm.ReadBudget;
import io.dask4j.comm.wire.WireCodec;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The read budget and the stall timeout of a started message, with a peer written here on a raw socket. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TcpReadLimitsTest {

    private static final int MIB = 1 << 20;
    /** A reader each (blocking reads), whatever the common pool's size. */
    private static final java.util.concurrent.Executor READERS = r -> Thread.ofVirtual().start(r);

    /** Waits, for at most 20 s, until {@code condition} holds (a condition another thread makes true). */
    private static void awaitUntil(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline).as("the condition held within 20 s").isNegative();
            Thread.sleep(1);
        }
    }

    private static TcpComm comm(LoopbackConnection c, CommLimits limits) throws Exception {
        TcpComm comm = new TcpComm(c.accepted(), Address.tcp("127.0.0.1", 1), Address.tcp("127.0.0.1", 2),
                CommOptions.defaults().withLimits(limits));
        comm.liftHandshakeLimit(1L << 30);   // as after a successful handshake
        return comm;
    }

    /** The wire bytes of a message with one byte frame of {@code frameBytes}. */
    private static byte[] wire(int frameBytes) {
        byte[] frame = new byte[frameBytes];
        Arrays.fill(frame, (byte) 7);
        byte[] header = new WireCodec().encodeHeaderToArray(Message.of("data", Map.of(), List.of(Frame.of(frame))));
        byte[] all = Arrays.copyOf(header, header.length + frameBytes);
        System.arraycopy(frame, 0, all, header.length, frameBytes);
        return all;
    }

    private static void send(LoopbackConnection c, byte[] bytes, int from, int to) throws Exception {
        ByteBuffer b = ByteBuffer.wrap(bytes, from, to - from);
        while (b.hasRemaining()) {
            c.dialled().write(b);
        }
    }

    @Test
    void aMessageLargerThanTheWholeBudgetIsRefusedBeforeAnythingIsAllocated() throws Exception {
        ReadBudget budget = new ReadBudget(MIB);
        try (LoopbackConnection c = LoopbackConnection.open()) {
            TcpComm comm = comm(c, CommLimits.defaults().withReadBudget(budget));
            byte[] message = wire(2 * MIB);
            send(c, message, 0, message.length - 2 * MIB);   // the header only: 2 MiB announced, none sent
            assertThatThrownBy(comm::read).isInstanceOf(ProtocolException.class).hasMessageContaining("read budget");
            assertThat(budget.peakBytes()).isZero();
            assertThat(comm.isClosed()).isTrue();
        }
    }

    @Test
    void messagesBeyondTheSharedBudgetWaitUntilEarlierOnesArriveAndMemoryStaysWithinIt() throws Exception {
        ReadBudget budget = new ReadBudget(3 * MIB);
        CommLimits limits = CommLimits.defaults().withReadBudget(budget);
        try (LoopbackConnection a = LoopbackConnection.open(); LoopbackConnection b = LoopbackConnection.open()) {
            TcpComm slow = comm(a, limits);
            TcpComm fast = comm(b, limits);
            byte[] first = wire(2 * MIB);
            int firstHeader = first.length - 2 * MIB;
            send(a, first, 0, firstHeader + 1);   // announces 2 MiB, sends one byte of it
            CompletableFuture<Message> slowRead = CompletableFuture.supplyAsync(slow::read, READERS);
            awaitUntil(() -> budget.reservedBytes() >= 2 * MIB);
            byte[] second = wire(2 * MIB);
            send(b, second, 0, second.length);   // all of it: only the budget holds it back
            CompletableFuture<Message> fastRead = CompletableFuture.supplyAsync(fast::read, READERS);
            awaitUntil(() -> budget.waits() >= 1);
            assertThat(fastRead).isNotDone();
            send(a, first, firstHeader + 1, first.length);
            assertThat(slowRead.get(20, TimeUnit.SECONDS).frame(0).size()).isEqualTo(2 * MIB);
            assertThat(fastRead.get(20, TimeUnit.SECONDS).frame(0).size()).isEqualTo(2 * MIB);
            assertThat(budget.peakBytes()).isLessThanOrEqualTo(3 * MIB);
            assertThat(budget.reservedBytes()).isZero();
        }
    }

    @Test
    void aStartedMessageWhoseBytesStopComingAbortsItsCommAndReleasesItsBudgetWhileAnIdleCommLives() throws Exception {
        ReadBudget budget = new ReadBudget(8 * MIB);
        CommLimits limits = CommLimits.defaults().withReadBudget(budget).withMessageStallTimeout(Duration.ofSeconds(1));
        try (LoopbackConnection stalled = LoopbackConnection.open(); LoopbackConnection idle = LoopbackConnection.open()) {
            TcpComm stalledComm = comm(stalled, limits);
            TcpComm idleComm = comm(idle, limits);
            CompletableFuture<Message> idleRead = CompletableFuture.supplyAsync(idleComm::read, READERS);
            byte[] message = wire(2 * MIB);
            send(stalled, message, 0, message.length - MIB);   // half the frame, then silence
            assertThatThrownBy(stalledComm::read).isInstanceOf(CommClosedException.class)
                    .hasMessageContaining("within a started message");
            assertThat(budget.reservedBytes()).isZero();
            // The checker has seen both comms past the timeout: the one that never started a message is left alone.
            assertThat(idleComm.isClosed()).isFalse();
            byte[] later = wire(10);
            send(idle, later, 0, later.length);
            assertThat(idleRead.get(20, TimeUnit.SECONDS).op()).isEqualTo("data");
        }
    }
}
