package io.dask4j.mpi.it;

import io.dask4j.comm.Address;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.Comms;
import io.dask4j.comm.Frame;
import io.dask4j.comm.Message;
import io.dask4j.mpi.MpiRuntime;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.dask4j.mpi.it.RankJob.check;

/**
 * Two ranks; a slow comm must not stop another. Rank 1 writes rank 0 eight 1 MiB messages on one comm that rank 0
 * does not read yet: with a 1 MiB window rank 1's writer waits for credit after the first. Meanwhile rank 0 writes
 * 20,000 small messages to rank 1 on another comm, with the smallest read window (2,048): rank 1 reads them all, and
 * its credits, which come from the rank whose other comm is stuck, must still reach rank 0's writer, or it would wait
 * for ever. Last, rank 0 reads the eight messages and rank 1's writer finishes.
 * Prints {@code RANK 0 FLOOD DONE} and {@code RANK r OK}.
 */
public final class CreditPastPauseMain {

    private static final int LARGE = 8;
    private static final int SMALL = 20_000;

    private CreditPastPauseMain() {
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("dask4j.mpi.inboxMiB", "1");
        System.setProperty("dask4j.mpi.readWindow", "2048");
        MpiRuntime mpi = MpiRuntime.start();
        int rank = mpi.rank();
        RankJob.listening(mpi, (options, accepted) -> {
            if (rank == 0) {
                pausedThenFlooding(mpi, accepted);
            } else {
                largeThenReading(mpi, options, accepted);
            }
            mpi.barrier();
        });
    }

    /** Rank 0: the comm from rank 1 stays unread, so rank 1 is paused, while it floods rank 1 on its own comm. */
    private static void pausedThenFlooding(MpiRuntime mpi, BlockingQueue<Comm> accepted) throws Exception {
        Comm fromPeer = accepted.poll(20, TimeUnit.SECONDS);
        check(fromPeer != null, "rank 1's comm was accepted");
        // Connected before rank 1 is paused: a paused rank's ACCEPT would wait behind the pause too.
        Comm toPeer = Comms.connect(Address.mpi(1), RankJob.options(0));
        mpi.barrier(Duration.ofSeconds(60)); // both comms are up
        mpi.barrier(Duration.ofSeconds(60)); // rank 1's writer of large messages has started
        AtomicInteger written = new AtomicInteger();
        Thread writer = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < SMALL; i++) {
                toPeer.write(Message.of("small", Map.of("i", (long) i)));
                written.incrementAndGet();
            }
        });
        Progress.join(writer, written::get, "RANK 0 FLOODED");
        check(written.get() == SMALL, "the flood finished while rank 1 was paused: " + written.get() + " of " + SMALL);
        System.out.println("RANK 0 FLOOD DONE");
        for (int i = 0; i < LARGE; i++) {
            Message m = fromPeer.read();
            check(m.getLong("i") == i && m.frame(0).size() == 1 << 20, "large message " + i + " in order and whole");
            m.release();
        }
        toPeer.close();
    }

    /** Rank 1: writes the large messages, then reads the flood (crediting it) from the comm rank 0 opened. */
    private static void largeThenReading(MpiRuntime mpi, CommOptions options, BlockingQueue<Comm> accepted)
            throws Exception {
        Comm toPeer = Comms.connect(Address.mpi(0), options);
        Comm fromPeer = accepted.poll(20, TimeUnit.SECONDS);
        check(fromPeer != null, "rank 0's comm was accepted");
        mpi.barrier(Duration.ofSeconds(60));
        AtomicInteger written = new AtomicInteger();
        Thread writer = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < LARGE; i++) {
                toPeer.write(Message.of("large", Map.of("i", (long) i), List.of(Frame.of(new byte[1 << 20]))));
                written.incrementAndGet();
            }
        });
        mpi.barrier(Duration.ofSeconds(60));
        for (int i = 0; i < SMALL; i++) {
            check(fromPeer.read().getLong("i") == i, "small message " + i + " in order");
        }
        Progress.join(writer, written::get, "RANK 1 LARGE WRITTEN");
        check(written.get() == LARGE, "the large messages went once rank 0 read them: " + written.get() + " of " + LARGE);
        toPeer.close();
    }
}
