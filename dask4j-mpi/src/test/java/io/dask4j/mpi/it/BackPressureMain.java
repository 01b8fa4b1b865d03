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

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.dask4j.mpi.it.RankJob.check;

/**
 * Three ranks; receive-side back-pressure with a 4 MiB inbox per comm. Rank 0 floods rank 1 with 64 messages
 * of 1 MiB on a comm rank 1 does not read: its writes must stall after a few MiB instead of rank 1 taking
 * (and allocating for) all of them. Meanwhile rank 2 still gets echoes from rank 1 on another comm. Then rank
 * 1 reads the flood: all 64 messages arrive, in order and intact, and rank 0's writes finish. Prints {@code
 * RANK r OK} or a failure.
 */
public final class BackPressureMain {

    private static final int MESSAGES = 64;
    private static final int BYTES = 1 << 20;

    private BackPressureMain() {
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("dask4j.mpi.inboxMiB", "4");
        MpiRuntime mpi = MpiRuntime.start();
        int rank = mpi.rank();
        CommOptions options = RankJob.options(rank);
        BlockingQueue<Comm> flooded = new LinkedBlockingQueue<>();
        RankJob.run(mpi, () -> {
            Listener listener = Comms.listen(Address.mpi(rank), options, comm -> {
                if (comm.peerIdentity().equals("rank-0")) {
                    flooded.add(comm);
                } else {
                    echo(comm);
                }
            });
            mpi.barrier();
            switch (rank) {
                case 0 -> flood(mpi);
                case 1 -> drainLater(mpi, flooded);
                default -> stillServed(mpi, options);
            }
            mpi.barrier();
            listener.stop();
        });
    }

    private static void flood(MpiRuntime mpi) throws Exception {
        Comm comm = Comms.connect(Address.mpi(1), CommOptions.fromEnvironment(Map.of()).withIdentity("rank-0"));
        AtomicInteger written = new AtomicInteger();
        Thread writer = Thread.ofPlatform().start(() -> {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment payload = arena.allocate(BYTES);
                for (int i = 0; i < MESSAGES; i++) {
                    payload.fill((byte) i);
                    comm.write(Message.of("flood", Map.of("i", (long) i), List.of(Frame.of(payload))));
                    written.incrementAndGet();
                }
            }
        });
        int seen = -1;
        // Stalled: no write finished for a second while messages are left.
        while (written.get() != seen) {
            seen = written.get();
            writer.join(1_000);
        }
        check(seen < MESSAGES / 2, "writes stalled while the peer does not read (" + seen + " of " + MESSAGES + " went)");
        System.out.println("RANK 0 STALLED AFTER " + seen);
        mpi.barrier(); // rank 2 checks that it is still served
        mpi.barrier(); // rank 1 reads the flood
        writer.join(60_000);
        check(written.get() == MESSAGES, "every write finished once the peer read: " + written.get());
        comm.close();
    }

    private static void drainLater(MpiRuntime mpi, BlockingQueue<Comm> flooded) throws Exception {
        Comm comm = flooded.poll(20, TimeUnit.SECONDS);
        check(comm != null, "the flooding comm was accepted");
        mpi.barrier();
        mpi.barrier();
        for (int i = 0; i < MESSAGES; i++) {
            Message m = comm.read();
            check(m.getLong("i") == i, "message " + i + " in order, got " + m.getLong("i"));
            MemorySegment data = m.frame(0).segment();
            check(data.byteSize() == BYTES && data.get(ValueLayout.JAVA_BYTE, BYTES - 1) == (byte) i, "message " + i + " intact");
        }
        try {
            comm.read();
        } catch (CommClosedException expected) {
            // rank 0 closed after its last write
        }
    }

    private static void stillServed(MpiRuntime mpi, CommOptions options) {
        mpi.barrier();
        try (Comm comm = Comms.connect(Address.mpi(1), options)) {
            for (int i = 0; i < 10; i++) {
                comm.write(Message.of("ping", Map.of("i", (long) i)));
                check(comm.read().getLong("i") == i, "echo " + i + " from rank 1 while rank 0 is paused");
            }
        }
        mpi.barrier();
    }

    private static void echo(Comm comm) {
        try {
            while (true) {
                comm.write(comm.read());
            }
        } catch (CommClosedException done) {
            comm.abort();
        }
    }
}
