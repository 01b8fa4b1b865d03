package io.dask4j.mpi.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.dask4j.comm.Address;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommException;
import io.dask4j.comm.Frame;
import io.dask4j.comm.HandshakeTimeoutException;
import io.dask4j.comm.Listener;
import io.dask4j.comm.Message;
import io.dask4j.comm.conformance.CommConformanceSuite;
import io.dask4j.mpi.MpiRuntime;
import io.dask4j.mpi.engine.BufferPool;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The comm conformance suite over the mpi backend. Not a surefire test (it needs MPI started by mpirun):
 * {@link ConformanceMain} runs it inside rank 0 of a 2-rank job; listeners live on rank 0 and the dead
 * address is rank 1, which never listens, so a refused connect crosses ranks.
 */
public class MpiConformanceCases extends CommConformanceSuite {
    private static final AtomicInteger NEXT_PORT = new AtomicInteger();

    @Override
    protected Address listenAddress() {
        // A fresh port per listener: one rank may listen on many mpi://<rank>:<port> addresses at once.
        return new Address("mpi", MpiRuntime.start().rank() + ":" + NEXT_PORT.incrementAndGet());
    }

    @Override
    protected Address deadAddress() {
        MpiRuntime mpi = MpiRuntime.start();
        return Address.mpi((mpi.rank() + 1) % mpi.size());
    }

    /**
     * Tcp rejects a message over 64 KiB before the handshake; the mpi backend cannot tell it from a legitimate
     * first message that arrived early, so it holds it back unreceived: the peer that skipped its handshake
     * times out, its message is dropped without ever being given memory, and the listener keeps serving.
     */
    @Test
    public void aLargeMessageBeforeTheHandshakeIsNeverReceivedAndTheListenerKeepsServing() throws Exception {
        BlockingQueue<CommException> failures = new LinkedBlockingQueue<>();
        AtomicInteger handled = new AtomicInteger();
        Listener listener = listen(listenAddress(), options().withHandshakeTimeout(Duration.ofSeconds(1)), comm -> {
            handled.incrementAndGet();
            echo().accept(comm);
        }, failures::add);
        BufferPool pool = MpiRuntime.start().transport().bufferPool();
        long lentBefore = pool.lentBytes();
        Comm raw = connectRaw(listener.contactAddress(), options());
        try (Arena arena = Arena.ofShared()) {
            // Native and over 1 MiB: the receiving rank would take it into pooled memory, which the pool counts.
            MemorySegment big = arena.allocate(4 << 20);
            CompletableFuture<Void> write = CompletableFuture.runAsync(
                    () -> raw.write(Message.of("get-data", Map.of(), List.of(Frame.of(big)))), virtualThreads());
            // Until the listener gives up on the peer (its handshake timeout), the message is never taken into memory.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            CommException handshakeFailure;
            while ((handshakeFailure = failures.poll(10, TimeUnit.MILLISECONDS)) == null) {
                assertThat(pool.lentBytes()).as("pooled bytes while the handshake is pending").isEqualTo(lentBefore);
                assertThat(System.nanoTime() - deadline).as("the listener's handshake timeout fired within 30 s").isNegative();
            }
            assertThat(handshakeFailure).isInstanceOf(HandshakeTimeoutException.class);
            // Dropped once the comm closed, so MPI is done with the sender's memory (the write may report the abort).
            write.handle((ok, failure) -> null).get(20, TimeUnit.SECONDS);
        }
        assertThat(pool.lentBytes()).isEqualTo(lentBefore);
        assertThat(handled).hasValue(0);
        Comm client = connect(listener.contactAddress(), options());
        client.write(Message.of("still-serving"));
        assertThat(client.read().op()).isEqualTo("still-serving");
        assertThat(handled).hasValue(1);
    }
}
