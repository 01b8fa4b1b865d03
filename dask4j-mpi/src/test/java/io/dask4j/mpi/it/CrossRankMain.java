package io.dask4j.mpi.it;

import io.dask4j.comm.Address;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommClosedException;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.Comms;
import io.dask4j.comm.FatalCommClosedException;
import io.dask4j.comm.Frame;
import io.dask4j.comm.Listener;
import io.dask4j.comm.Message;
import io.dask4j.comm.stats.TransportGauges;
import io.dask4j.mpi.MpiRuntime;
import io.dask4j.mpi.binding.MpiException;
import io.dask4j.mpi.binding.Posix;
import io.dask4j.mpi.engine.ProgressEngine;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static io.dask4j.mpi.it.RankJob.check;

/**
 * Runs inside every rank of an mpirun job. First the binding: MPI errors become MpiExceptions with MPI's
 * text, and a null dereference in compiled code is still a NullPointerException (UCX did not take SIGSEGV).
 * Then the backend: each rank listens on mpi://rank with an echo handler, then
 * talks to every rank (itself included) through the mpi backend: ping-pong with every kind of frame,
 * several comms between the same two ranks kept apart, a peer closing, a bad rank. Prints
 * {@code RANK r OK} and exits 0, or prints the failure and exits 1.
 */
public final class CrossRankMain {

    private CrossRankMain() {
    }

    public static void main(String[] args) throws Exception {
        MpiRuntime mpi = MpiRuntime.start();
        int rank = mpi.rank();
        int size = mpi.size();
        CommOptions options = CommOptions.fromEnvironment(Map.of()).withSecret("job-secret-of-128-bits").withIdentity("rank-" + rank)
                .withConnectTimeout(Duration.ofSeconds(20));
        RankJob.run(mpi, () -> {
            bindingChecks(mpi);
            Listener listener = Comms.listen(Address.mpi(rank), options, CrossRankMain::echo);
            mpi.barrier();
            for (int peer = 0; peer < size; peer++) {
                talkTo(Address.mpi(peer), options, rank);
            }
            try {
                Comms.connect(Address.mpi(size), options);
                throw new AssertionError("connect to a rank outside the job should fail");
            } catch (FatalCommClosedException expected) {
                check(expected.getMessage().contains("no rank " + size), expected.getMessage());
            }
            Map<String, Double> gauges = TransportGauges.snapshot().get(ProgressEngine.GAUGES);
            check(gauges != null && gauges.get("passes_total") > 0 && gauges.get("bytes_sent_total") > (3 << 20)
                    && gauges.get("bytes_received_total") > (3 << 20), "engine gauges published: " + gauges);
            mpi.barrier();
            listener.stop();
        });
    }

    /** The binding itself: library identity, MPI errors as exceptions with MPI's text, the JVM's SIGSEGV kept. */
    private static void bindingChecks(MpiRuntime mpi) {
        if (mpi.rank() == 0) {
            System.out.println("LIBRARY " + mpi.mpi().library().name() + " " + mpi.mpi().abi().family() + " "
                    + mpi.mpi().libraryVersion().lines().findFirst().orElse("") + " thread level " + mpi.threadLevel());
        }
        check(Posix.getenv("UCX_ERROR_SIGNALS") != null, "UCX_ERROR_SIGNALS set before libmpi loaded");
        MpiException error = mpi.engine().exclusive(() -> {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment buf = arena.allocate(8);
                MemorySegment request = arena.allocate(8);
                mpi.mpi().check(mpi.mpi().isend(buf, 8, mpi.mpi().abi().byteType(), mpi.size() + 5, 0, mpi.comm(), request),
                        "MPI_Isend");
                return null;
            } catch (MpiException e) {
                return e;
            }
        });
        check(error != null && error.errorCode() > 0 && error.getMessage().toLowerCase(java.util.Locale.ROOT).contains("rank"),
                "MPI error as MpiException with MPI_Error_string text: " + error);
        // HotSpot turns null dereferences in compiled code into SIGSEGV and back into NullPointerException;
        // UCX's own SIGSEGV handler would kill the JVM instead.
        int caught = 0;
        for (int round = 0; round < 5; round++) {
            for (int i = 0; i < 50_000; i++) {
                caught += length("warm-up") == 7 ? 0 : 1;
            }
            try {
                length(null);
            } catch (NullPointerException expected) {
                caught++;
            }
        }
        check(caught == 5, "null dereferences survived: " + caught);
        System.out.println("RANK " + mpi.rank() + " BINDING OK");
    }

    private static int length(String s) {
        return s.length();
    }

    private static void echo(Comm comm) {
        try {
            while (true) {
                Message m = comm.read();
                if (m.op().equals("close-me")) {
                    comm.close();
                    return;
                }
                comm.write(m);
            }
        } catch (CommClosedException done) {
            comm.abort();
        }
    }

    private static void talkTo(Address peer, CommOptions options, int rank) {
        Comm a = Comms.connect(peer, options);
        check(a.peerIdentity().equals("rank-" + peer.rank()), "identity " + a.peerIdentity());
        double[] doubles = {1.5, -2.25, Double.NaN};
        byte[] big = pattern(3 << 20, rank);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment nat = arena.allocate(1 << 20);
            for (long i = 0; i < nat.byteSize(); i++) {
                nat.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + rank));
            }
            a.write(Message.of("kinds", Map.of("from", (long) rank, "list", List.of("x", 2L)),
                    List.of(Frame.of(new byte[0]), Frame.of(doubles), Frame.of(nat), Frame.of(big), Frame.of(new byte[] {9}))));
            Message back = a.read();
            check(back.getLong("from") == rank, "field");
            check(back.getList("list").equals(List.of("x", 2L)), "list");
            check(back.frame(0).size() == 0, "empty frame");
            check(Arrays.equals(back.frame(1).toDoubleArray(), doubles), "doubles");
            check(back.frame(2).segment().mismatch(nat) == -1, "native frame");
            check(back.frame(1).segment().heapBase().orElse(null) instanceof double[], "a double[] arrives as a double[]");
            check(Arrays.equals(back.frame(3).toByteArray(), big), "big frame");
            check(back.frame(4).toByteArray()[0] == 9, "last frame");
        }
        // Several comms between the same two ranks stay apart.
        List<Comm> many = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            many.add(Comms.connect(peer, options));
        }
        for (int round = 0; round < 20; round++) {
            for (int i = 0; i < many.size(); i++) {
                many.get(i).write(Message.of("n", Map.of("comm", (long) i, "round", (long) round)));
            }
            for (int i = many.size() - 1; i >= 0; i--) {
                Message m = many.get(i).read();
                check(m.getLong("comm") == i && m.getLong("round") == round, "isolation " + m.fields());
            }
        }
        // A peer that closes makes our reads and writes fail; other comms are untouched.
        Comm closing = many.getFirst();
        closing.write(Message.of("close-me"));
        try {
            closing.read();
            throw new AssertionError("read after the peer closed should fail");
        } catch (CommClosedException expected) {
            // the comm's end
        }
        Comm other = many.get(1);
        other.write(Message.of("still"));
        check(other.read().op().equals("still"), "other comm after close");
        for (Comm c : many) {
            c.close();
        }
        a.close();
        try {
            a.read();
            throw new AssertionError("read after close should fail");
        } catch (CommClosedException expected) {
            // closed locally
        }
    }

    private static byte[] pattern(int size, int seed) {
        byte[] bytes = new byte[size];
        for (int i = 0; i < size; i++) {
            bytes[i] = (byte) (i * 131 + seed * 7 + (i >>> 9));
        }
        return bytes;
    }
}
