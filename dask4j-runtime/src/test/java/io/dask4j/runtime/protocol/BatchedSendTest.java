package io.dask4j.runtime.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.dask4j.comm.Address;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommClosedException;
import io.dask4j.comm.Message;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class BatchedSendTest {

    /** A peer that stops reading: its first write blocks until the comm is aborted. */
    private static final class StuckComm implements Comm {
        final CountDownLatch aborted = new CountDownLatch(1);
        final CountDownLatch writing = new CountDownLatch(1);
        final AtomicBoolean closed = new AtomicBoolean();

        @Override
        public void write(Message message) {
            writing.countDown();
            try {
                aborted.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw new CommClosedException("aborted");
        }

        @Override
        public void abort() {
            closed.set(true);
            aborted.countDown();
        }

        @Override
        public Message read() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void close() {
            abort();
        }

        @Override
        public boolean isClosed() {
            return closed.get();
        }

        @Override
        public Address localAddress() {
            return Address.inproc("here");
        }

        @Override
        public Address peerAddress() {
            return Address.inproc("stuck-peer");
        }
    }

    @Test
    void aPeerThatStopsReadingLosesItsCommOnceTooManyMessagesWaitForItInsteadOfGrowingMemory() throws Exception {
        StuckComm comm = new StuckComm();
        CompletableFuture<Throwable> failure = new CompletableFuture<>();
        BatchedSend out = new BatchedSend(comm, TimeUnit.MILLISECONDS.toNanos(2), 10, 100, failure::complete);
        out.send(Message.of("first"));
        assertThat(comm.writing.await(10, TimeUnit.SECONDS)).isTrue();
        for (int i = 0; i < 100; i++) {
            out.send(Message.of("queued-" + i));
        }
        assertThat(comm.isClosed()).as("100 waiting is within the cap").isFalse();
        out.send(Message.of("one too many"));
        assertThat(failure.get(10, TimeUnit.SECONDS)).isInstanceOf(BatchedSend.UnsentLimitException.class)
                .hasMessageContaining("stuck-peer").hasMessageContaining("100 messages unsent");
        assertThat(comm.isClosed()).isTrue();
        out.send(Message.of("after"));   // dropped quietly, as after any failure
    }
}
