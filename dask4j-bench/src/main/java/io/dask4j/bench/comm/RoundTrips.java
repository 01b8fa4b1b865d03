package io.dask4j.bench.comm;

import io.dask4j.comm.Comm;
import io.dask4j.comm.Message;
import org.HdrHistogram.Histogram;

/**
 * One client comm of {@code bench comm} in one {@link ReceiveMode}, and how it runs a batch of round trips:
 * write then blocking read on the calling thread, or from inside the push handler ({@link PushPingPong}).
 */
final class RoundTrips {

    private final String label;
    private final Comm comm;
    private final PushPingPong pushed;

    private RoundTrips(String label, Comm comm, PushPingPong pushed) {
        this.label = label;
        this.comm = comm;
        this.pushed = pushed;
    }

    static RoundTrips open(String label, ReceiveMode mode, Comm comm) {
        PushPingPong pushed = null;
        if (mode != ReceiveMode.READ) {
            pushed = new PushPingPong(comm);
            mode.receive(comm, pushed);
        }
        return new RoundTrips(label, comm, pushed);
    }

    String label() {
        return label;
    }

    Comm comm() {
        return comm;
    }

    /** {@code rounds} round trips of {@code ping}, each recorded into {@code into} unless it is null. */
    void run(Message ping, long size, int rounds, Histogram into) throws InterruptedException {
        if (pushed != null) {
            pushed.run(ping, size, rounds, into);
            return;
        }
        for (int i = 0; i < rounds; i++) {
            long start = System.nanoTime();
            comm.write(ping);
            Message pong = comm.read();
            long rtt = System.nanoTime() - start;
            if (pong.frameBytes() != size) {
                throw new IllegalStateException("echo returned " + pong.frameBytes() + " bytes instead of " + size);
            }
            pong.release();
            if (into != null) {
                into.recordValue(Math.max(1, rtt));
            }
        }
    }
}
