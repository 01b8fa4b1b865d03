package io.dask4j.mpi.comm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The window of sends to one peer: what may be posted while an earlier send to it is incomplete. */
class PeerSendOrderTest {

    @Test
    void sendsThatCompleteAtOnceStillCountWhileAnEarlierOneIsIncomplete() {
        PeerSendOrder order = new PeerSendOrder(100);
        assertThat(order.tryTake(1)).as("a held-back frame send").isTrue();
        for (int i = 0; i < 99; i++) {            // small sends MPI completes as soon as it buffers them
            assertThat(order.tryTake(1)).isTrue();
            order.give(1);
        }
        assertThat(order.sendsInWindow()).isEqualTo(100);
        assertThat(order.tryTake(1)).as("the 101st send while the first is incomplete").isFalse();
        order.give(1);                            // the held-back send completes: a new window
        assertThat(order.sendsInWindow()).isZero();
        assertThat(order.tryTake(1)).isTrue();
    }

    @Test
    void aMessageLargerThanTheWindowPassesWhenNothingIsIncomplete() {
        PeerSendOrder order = new PeerSendOrder(100);
        assertThat(order.tryTake(500)).isTrue();
        assertThat(order.fits(1)).isFalse();
        order.give(500);
        assertThat(order.incompleteSends()).isZero();
        assertThat(order.fits(1)).isTrue();
    }

    @Test
    void aDrainOnlyStartsANewWindowWhenEverySendIsComplete() {
        PeerSendOrder order = new PeerSendOrder(10);
        assertThat(order.tryTake(4)).isTrue();
        assertThat(order.tryTake(4)).isTrue();
        order.give(4);
        assertThat(order.sendsInWindow()).as("one message still out").isEqualTo(8);
        assertThat(order.tryTake(4)).isFalse();
        order.give(4);
        assertThat(order.tryTake(4)).isTrue();
    }

    @Test
    @Timeout(10)
    void aWaitingWriterIsUnparkedByTheDrain() throws Exception {
        PeerSendOrder order = new PeerSendOrder(1);
        assertThat(order.tryTake(1)).isTrue();
        AtomicBoolean took = new AtomicBoolean();
        Thread writer = Thread.ofPlatform().start(() -> {
            order.waiting(Thread.currentThread());
            while (!order.tryTake(1)) {
                LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(60));   // only an unpark ends it in time
            }
            order.done(Thread.currentThread());
            took.set(true);
        });
        // parked in its wait, registered (no fixed sleep: the thread's own state says so)
        Background.awaitTrue(() -> writer.getState() == Thread.State.TIMED_WAITING);
        assertThat(took).isFalse();
        order.give(1);
        writer.join(5000);
        assertThat(took).isTrue();
    }
}
