package io.dask4j.mpi.it;

import io.dask4j.comm.Address;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommClosedException;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.Comms;
import io.dask4j.comm.Frame;
import io.dask4j.comm.Listener;
import io.dask4j.comm.Message;
import io.dask4j.mpi.MpiRuntime;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.dask4j.mpi.it.RankJob.check;

/**
 * Two ranks; send-side back-pressure for copied frames, with a 4 MiB send budget and a 2 MiB inbox. Rank 0
 * writes 48 messages of one 1 MiB heap frame (copied into pooled memory, so the write returns before MPI
 * sends it) to rank 1, which does not read yet: the writes must stall after the inbox plus the budget (about
 * 8 messages) instead of all returning and piling up copies. Then rank 1 reads: every message arrives in
 * order and intact, and rank 0's writes finish. Prints {@code RANK 0 STALLED AFTER n} and {@code RANK r OK}.
 */
public final class SendBudgetMain {

    private static final int MESSAGES = 48;
    private static final int BYTES = 1 << 20;

    private SendBudgetMain() {
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("dask4j.mpi.sendBudgetMiB", "4");
        System.setProperty("dask4j.mpi.inboxMiB", "2");
        MpiRuntime mpi = MpiRuntime.start();
        int rank = mpi.rank();
        CommOptions options = RankJob.options(rank);
        BlockingQueue<Comm> accepted = new LinkedBlockingQueue<>();
        RankJob.run(mpi, () -> {
            Listener listener = Comms.listen(Address.mpi(rank), options, accepted::add);
            mpi.barrier();
            if (rank == 0) {
                flood(mpi, options);
            } else {
                drainLater(mpi, accepted);
            }
            mpi.barrier();
            listener.stop();
        });
    }

    private static void flood(MpiRuntime mpi, CommOptions options) throws Exception {
        Comm comm = Comms.connect(Address.mpi(1), options);
        AtomicInteger written = new AtomicInteger();
        Thread writer = Thread.ofPlatform().start(() -> {
            byte[] payload = new byte[BYTES];
            for (int i = 0; i < MESSAGES; i++) {
                java.util.Arrays.fill(payload, (byte) i);
                comm.write(Message.of("flood", Map.of("i", (long) i), List.of(Frame.of(payload))));
                written.incrementAndGet();
            }
        });
        int seen = -1;
        // Stalled: no write finished for a second while messages are left.
        while (written.get() != seen) {
            seen = written.get();
            writer.join(1_000);
        }
        check(seen < MESSAGES / 2, "copied writes stalled while the peer does not read (" + seen + " of " + MESSAGES + " went)");
        System.out.println("RANK 0 STALLED AFTER " + seen);
        mpi.barrier(); // rank 1 reads now
        writer.join(60_000);
        check(written.get() == MESSAGES, "every write finished once the peer read: " + written.get());
        comm.close();
    }

    private static void drainLater(MpiRuntime mpi, BlockingQueue<Comm> accepted) throws Exception {
        Comm comm = accepted.poll(20, TimeUnit.SECONDS);
        check(comm != null, "the flooding comm was accepted");
        mpi.barrier(Duration.ofSeconds(60));
        for (int i = 0; i < MESSAGES; i++) {
            Message m = comm.read();
            check(m.getLong("i") == i, "message " + i + " in order, got " + m.getLong("i"));
            byte[] data = m.frame(0).toByteArray();
            check(data.length == BYTES && data[0] == (byte) i && data[BYTES - 1] == (byte) i, "message " + i + " intact");
            m.release();
        }
        try {
            comm.read();
        } catch (CommClosedException expected) {
            // rank 0 closed after its last write
        }
    }
}
