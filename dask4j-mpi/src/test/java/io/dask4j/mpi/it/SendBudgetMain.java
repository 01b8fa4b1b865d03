package io.dask4j.mpi.it;

import io.dask4j.comm.Address;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommClosedException;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.Comms;
import io.dask4j.comm.Frame;
import io.dask4j.comm.Message;
import io.dask4j.mpi.MpiRuntime;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.dask4j.mpi.it.RankJob.check;

/**
 * Two ranks; send-side back-pressure. Rank 0 floods rank 1, which does not read yet: the writes must stall
 * instead of all returning and piling up copies and pending MPI sends. Then rank 1 reads: every message arrives
 * in order and intact, and rank 0's writes finish. Prints {@code RANK 0 STALLED AFTER n} and {@code RANK r OK}.
 * <ul>
 *   <li>no argument: 48 messages of one 1 MiB heap frame (copied into pooled memory, so the write returns
 *   before MPI sends it), with a 4 MiB send budget and a 2 MiB inbox: they stall after about 8 messages;</li>
 *   <li>{@code many-frames}: 60 messages of sixteen 128 KiB frames (2 MiB, each frame one MPI send that
 *   completes only once rank 1 has matched it), with a 1 GiB send budget (it never binds), a 1 MiB inbox and
 *   at most 64 sends in flight: they stall after about 5 messages (before the bound on sends they all
 *   returned, leaving 1,000 sends pending for every engine pass to test).</li>
 *   <li>{@code frameless}: 6,000 messages without frames (each one small MPI send, which completes as soon as
 *   the library has buffered it), with the smallest read window, 2,048 messages: they stall after about 2,048
 *   (before the credits they all returned, and rank 1's MPI library held them unmatched).</li>
 * </ul>
 */
public final class SendBudgetMain {

    private static int messages = 48;
    private static int framesPerMessage = 1;
    private static int bytes = 1 << 20;

    private SendBudgetMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("frameless")) {
            messages = 6_000;
            framesPerMessage = 0;
            // No payload to fill: filling an unused 1 MiB array for each message (1-3 ms under the tests' C1-only
            // JIT) was what held the drain after the stall to about 1,000 messages a second, not the credits.
            bytes = 0;
            System.setProperty("dask4j.mpi.readWindow", "2048");
        } else if (args.length > 0 && args[0].equals("many-frames")) {
            messages = 60;
            framesPerMessage = 16;
            bytes = 128 << 10;
            System.setProperty("dask4j.mpi.inboxMiB", "1");
        } else {
            System.setProperty("dask4j.mpi.inboxMiB", "2");
        }
        MpiRuntime mpi = MpiRuntime.start();
        int rank = mpi.rank();
        RankJob.listening(mpi, (options, accepted) -> {
            if (rank == 0) {
                flood(mpi, options);
            } else {
                drainLater(mpi, accepted);
            }
            mpi.barrier();
        });
    }

    private static void flood(MpiRuntime mpi, CommOptions options) throws Exception {
        Comm comm = Comms.connect(Address.mpi(1), options);
        AtomicInteger written = new AtomicInteger();
        Thread writer = Thread.ofPlatform().start(() -> {
            byte[] payload = new byte[bytes];
            for (int i = 0; i < messages; i++) {
                java.util.Arrays.fill(payload, (byte) i);
                List<Frame> frames = Collections.nCopies(framesPerMessage, Frame.of(payload));
                comm.write(Message.of("flood", Map.of("i", (long) i), frames));
                written.incrementAndGet();
            }
        });
        int seen = -1;
        // Stalled: no write finished for a second while messages are left.
        while (written.get() != seen) {
            seen = written.get();
            writer.join(1_000);
        }
        check(seen < messages / 2, "writes stalled while the peer does not read (" + seen + " of " + messages + " went)");
        System.out.println("RANK 0 STALLED AFTER " + seen);
        mpi.barrier(); // rank 1 reads now
        Progress.join(writer, written::get, "RANK 0 WRITTEN");
        check(written.get() == messages, "every write finished once the peer read: " + written.get());
        comm.close();
    }

    private static void drainLater(MpiRuntime mpi, BlockingQueue<Comm> accepted) throws Exception {
        Comm comm = accepted.poll(20, TimeUnit.SECONDS);
        check(comm != null, "the flooding comm was accepted");
        mpi.barrier(); // rank 0 has seen its writes stall
        for (int i = 0; i < messages; i++) {
            Message m = comm.read();
            check(m.getLong("i") == i, "message " + i + " in order, got " + m.getLong("i"));
            check(m.frames().size() == framesPerMessage, "message " + i + " has all its frames");
            for (Frame frame : m.frames()) {
                byte[] data = frame.toByteArray();
                check(data.length == bytes && data[0] == (byte) i && data[bytes - 1] == (byte) i, "message " + i + " intact");
            }
            m.release();
        }
        try {
            comm.read();
        } catch (CommClosedException expected) {
            // rank 0 closed after its last write
        }
    }
}
