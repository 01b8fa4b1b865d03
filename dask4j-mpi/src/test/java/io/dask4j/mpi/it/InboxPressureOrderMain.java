package io.dask4j.mpi.it;

import io.dask4j.comm.Address;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommClosedException;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.Comms;
import io.dask4j.comm.Frame;
import io.dask4j.comm.Message;
import io.dask4j.mpi.MpiRuntime;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static io.dask4j.mpi.it.RankJob.check;

/**
 * Two ranks with the default engine (doorbells on) and a 1 MiB inbox. Rank 0 writes rounds of a large message
 * (many small heap frames) followed at once by a small one (which its writer may post itself): the small one
 * must never slip between the large one's envelope and its frames, where rank 1, over its inbox budget, would
 * hold it back and never see the frames. Rank 1 reads slowly, so its engine keeps pausing and resuming rank 0,
 * and must get every message in order, reading on until the last (it fails if it stops getting messages for
 * {@link Progress#STALL}). A second comm of rank 0 keeps writing small
 * messages meanwhile, as fast as it can, so that another thread often holds the engine's lock and rank 0 keeps
 * more sends pending than its send budget allows (the writers then wait, see {@code SendBudget}). Prints {@code RANK r OK}, or {@code RANK r FAILED} (the reader hung or messages were wrong).
 */
public final class InboxPressureOrderMain {

    private static final int ROUNDS = 20;
    private static final int FRAMES = 2000;
    private static final int FRAME_BYTES = 8 << 10;

    private InboxPressureOrderMain() {
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("dask4j.mpi.inboxMiB", "1");
        MpiRuntime mpi = MpiRuntime.start();
        int rank = mpi.rank();
        RankJob.listening(mpi, (options, accepted) -> {
            if (rank == 0) {
                write(options);
            } else {
                Comm first = accepted.poll(20, TimeUnit.SECONDS);
                Comm second = accepted.poll(20, TimeUnit.SECONDS);
                check(first != null && second != null, "both comms were accepted");
                // Each comm says which it is: their handshakes may end in either order here.
                boolean firstIsNoise = first.read().op().equals("noise-hello");
                check(second.read().op().equals(firstIsNoise ? "main-hello" : "noise-hello"), "one comm of each kind");
                read(firstIsNoise ? second : first, firstIsNoise ? first : second);
            }
            mpi.barrier(); // rank 0 waits while rank 1 reads: the job's watchdog ends it if rank 1 stops moving
        });
    }

    private static void write(CommOptions options) throws Exception {
        List<Frame> frames = new ArrayList<>(FRAMES);
        for (int i = 0; i < FRAMES; i++) {
            frames.add(Frame.of(new byte[FRAME_BYTES]));
        }
        Comm noise = Comms.connect(Address.mpi(1), options);
        noise.write(Message.of("noise-hello"));
        Comm comm = Comms.connect(Address.mpi(1), options);
        comm.write(Message.of("main-hello"));
        AtomicBoolean done = new AtomicBoolean();
        Thread noiser = Thread.ofPlatform().start(() -> {
            while (!done.get()) {
                noise.write(Message.of("noise"));
            }
            noise.close();
        });
        for (int round = 0; round < ROUNDS; round++) {
            comm.write(Message.of("large", Map.of("round", (long) round), frames));
            comm.write(Message.of("small", Map.of("round", (long) round)));
        }
        done.set(true);
        noiser.join();
        comm.close();
    }

    private static void read(Comm comm, Comm noise) throws Exception {
        Thread.ofPlatform().daemon().start(() -> {
            try {
                while (true) {
                    noise.read();
                }
            } catch (CommClosedException closed) {
                // the writer is done
            }
        });
        AtomicInteger read = new AtomicInteger();
        Thread reader = Thread.ofPlatform().daemon().start(() -> {
            for (int round = 0; round < ROUNDS; round++) {
                // A slow reader is what this job is about: staying behind, it keeps the inbox over budget when the
                // small message arrives, so that its engine keeps pausing and resuming rank 0.
                sleep();
                Message large = comm.read();
                check(large.op().equals("large") && large.getLong("round") == round
                        && large.frames().size() == FRAMES, "large message of round " + round + ": " + describe(large));
                read.incrementAndGet();
                Message small = comm.read();
                check(small.op().equals("small") && small.getLong("round") == round, "small message of round " + round + ": " + describe(small));
                read.incrementAndGet();
            }
        });
        Progress.join(reader, read::get, "RANK 1 READ");
        check(read.get() == 2 * ROUNDS, "the reader got every message in order: " + read.get() + " of " + 2 * ROUNDS);
        comm.close();
    }

    private static String describe(Message message) {
        return message.op() + " of round " + message.getLong("round") + " with " + message.frames().size() + " frames";
    }

    private static void sleep() {
        try {
            Thread.sleep(50);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
