package io.dask4j.bench.comm;

import io.dask4j.comm.Comm;
import io.dask4j.comm.CommException;
import io.dask4j.comm.Message;
import io.dask4j.comm.MessageHandler;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * Ping-pong driven from inside the handler, as an event loop in push mode would run it: the handler records the
 * round trip of each reply and writes the next ping itself, on the transport's delivery thread. The calling thread
 * only starts a batch and waits for its end. Batches run one at a time; the latch publishes a batch's results.
 */
final class PushPingPong implements MessageHandler {

    private final Comm comm;
    private Message ping;
    private long size;
    private int remaining;
    private long startNs;
    private Histogram into;
    private CountDownLatch done;
    private volatile RuntimeException failure;
    /** Written after a batch's fields and read before them: publishes them to the delivery thread. */
    private volatile int batches;

    PushPingPong(Comm comm) {
        this.comm = comm;
    }

    /** Runs {@code rounds} round trips of {@code ping}, recording each into {@code histogram} (null: a warm-up). */
    void run(Message ping, long size, int rounds, Histogram histogram) throws InterruptedException {
        this.ping = ping;
        this.size = size;
        remaining = rounds;
        into = histogram;
        done = new CountDownLatch(1);
        CountDownLatch batch = done;
        batches++;
        startNs = System.nanoTime();
        comm.write(ping);   // on inproc the whole batch runs inside this call
        if (!batch.await(10, TimeUnit.MINUTES)) {
            throw new IllegalStateException("the push ping-pong stalled with " + remaining + " round trips to go");
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public void onMessage(Message pong) {
        long now = System.nanoTime();
        if (batches == 0) {
            throw new IllegalStateException("a reply before any ping");
        }
        if (into != null) {
            into.recordValue(Math.max(1, now - startNs));
        }
        if (pong.frameBytes() != size) {
            fail(new IllegalStateException("echo returned " + pong.frameBytes() + " bytes instead of " + size));
            return;
        }
        pong.release();
        if (--remaining > 0) {
            startNs = System.nanoTime();
            comm.write(ping);
        } else {
            done.countDown();
        }
    }

    @Override
    public void onClose(CommException cause) {
        if (remaining > 0) {
            fail(cause);
        }
    }

    private void fail(RuntimeException e) {
        failure = e;
        done.countDown();
    }
}
