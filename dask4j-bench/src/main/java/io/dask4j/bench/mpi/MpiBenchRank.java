package io.dask4j.bench.mpi;

import io.dask4j.comm.Address;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommClosedException;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.Comms;
import io.dask4j.comm.Frame;
import io.dask4j.comm.Listener;
import io.dask4j.comm.Message;
import io.dask4j.comm.stats.TransportGauges;
import io.dask4j.mpi.MpiRuntime;
import io.dask4j.mpi.engine.ProgressEngine;
import org.HdrHistogram.Histogram;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The program every rank of the benchmark's mpirun job runs (started by {@link MpiCommBenchCommand}).
 * Ranks 0 and 1: raw MPI ping-pong through the binding, then ping-pong through the Comm API (rank 0
 * connects to a listener on rank 1 whose echo loop runs on a platform thread), then both ranks sit idle
 * with an open comm and a pending read while their CPU time is measured. Rank 0 prints {@code JSON ...}
 * and {@code ROW ...} lines; each rank prints its {@code IDLE} line.
 *
 * <p>Arguments: {@code <mpi name> <sizes,comma,separated> <iterations> <idle seconds> <native|heap> [<min rounds>]}.
 */
public final class MpiBenchRank {

    private MpiBenchRank() {
    }

    public static void main(String[] args) throws Exception {
        String impl = args[0];
        long[] sizes = Arrays.stream(args[1].split(",")).mapToLong(Long::parseLong).toArray();
        int iterations = Integer.parseInt(args[2]);
        int idleSeconds = Integer.parseInt(args[3]);
        boolean heapFrames = args[4].equals("heap");
        minRounds = args.length > 5 ? Integer.parseInt(args[5]) : 10;
        MpiRuntime mpi = MpiRuntime.start();
        if (mpi.size() < 2) {
            System.out.println("ERROR the benchmark needs 2 ranks, got " + mpi.size());
            mpi.close();
            System.exit(2);
        }
        int rank = mpi.rank();
        for (long size : sizes) {
            RawPingPong.run(mpi, impl, size, 0, Math.max(2, roundsFor(size, 20_000) / 4));
        }
        for (long size : sizes) {
            int rounds = roundsFor(size, iterations);
            BenchResult r = RawPingPong.run(mpi, impl, size, Math.max(rounds / 10, 2), rounds);
            report(rank, r);
        }
        CommOptions options = CommOptions.defaults().withIdentity("bench-" + rank).withConnectTimeout(Duration.ofSeconds(30));
        Listener listener = Comms.listen(Address.mpi(rank), options, MpiBenchRank::echoOnPlatformThread);
        mpi.barrier();
        if (rank == 0) {
            try (Comm comm = Comms.connect(Address.mpi(1), options)) {
                warmUp(comm, sizes, heapFrames);
                for (long size : sizes) {
                    int rounds = roundsFor(size, iterations);
                    report(rank, pingPong(comm, impl, size, Math.max(rounds / 10, 2), rounds, heapFrames));
                }
            }
        }
        mpi.barrier();
        idle(mpi, options, idleSeconds);
        mpi.barrier();
        listener.stop();
        mpi.close();
    }

    /**
     * Small-message round trips before any measurement: the Comm path is a few dozen methods that the JIT
     * compiles only after some 10^4 calls, and under mpirun's core binding the JIT's threads share one core
     * with a thread that spins while it waits, so compiling takes seconds. Without a long enough warm-up
     * the first size measured (8 B) read 7-8 us instead of 1.3-1.6 (Open MPI, measured).
     */
    static final long WARM_UP_NANOS = 4_000_000_000L;

    /** Ping-pongs small messages for {@link #WARM_UP_NANOS}, then every size a few times. */
    private static void warmUp(Comm comm, long[] sizes, boolean heapFrames) {
        long start = System.nanoTime();
        while (System.nanoTime() - start < WARM_UP_NANOS) {
            for (long size : sizes) {
                if (size <= 4096) {
                    pingPong(comm, "warm-up", size, 0, 2_000, heapFrames);
                }
            }
            pingPong(comm, "warm-up", 8, 0, 2_000, heapFrames);
        }
        for (long size : sizes) {
            pingPong(comm, "warm-up", size, 0, Math.max(2, roundsFor(size, 1_000) / 4), heapFrames);
        }
    }

    /** Fewest timed rounds per size (large sizes get only 1 GiB of traffic otherwise: 16 rounds at 64 MiB). */
    private static int minRounds = 10;

    static int roundsFor(long size, int iterations) {
        long byBudget = (1L << 30) / Math.max(size, 1);
        return (int) Math.max(minRounds, Math.min(iterations, byBudget));
    }

    private static void report(int rank, BenchResult r) {
        if (rank == 0) {
            System.out.println("JSON " + r.toJson());
            System.out.println("ROW " + r.toRow());
            System.out.flush();
        }
    }

    /** The echo side of the Comm ping-pong: a platform thread, so that it drives MPI while it waits. */
    private static void echoOnPlatformThread(Comm comm) {
        Thread.ofPlatform().name("bench-echo").start(() -> {
            try {
                while (true) {
                    Message m = comm.read();
                    comm.write(m);
                    m.release(); // the write returned: MPI no longer reads the frames, so they may be reused
                }
            } catch (CommClosedException done) {
                comm.abort();
            }
        });
    }

    private static BenchResult pingPong(Comm comm, String impl, long size, int warmup, int rounds, boolean heapFrames) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment payload = heapFrames ? MemorySegment.ofArray(new byte[Math.toIntExact(size)])
                    : arena.allocate(Math.max(size, 1), 4096).asSlice(0, size);
            payload.fill((byte) 3);
            Message ping = Message.of("ping", Map.of(), List.of(Frame.of(payload)));
            Histogram rtt = new Histogram(1, 600_000_000_000L, 3);
            for (int i = 0; i < warmup + rounds; i++) {
                long start = System.nanoTime();
                comm.write(ping);
                Message pong = comm.read();
                if (pong.frameBytes() != size) {
                    throw new IllegalStateException("echo returned " + pong.frameBytes() + " bytes instead of " + size);
                }
                pong.release();
                if (i >= warmup) {
                    rtt.recordValue(Math.max(1, System.nanoTime() - start));
                }
            }
            return new BenchResult("mpi", impl, heapFrames ? "comm" : "comm", size, rounds,
                    rtt.getValueAtPercentile(50) / 2e3, rtt.getValueAtPercentile(99) / 2e3);
        }
    }

    /** How long the JIT's compiler threads must have used no CPU before the idle window starts. */
    private static final long JIT_QUIET_NANOS = 500_000_000L;
    /** The longest wait for that quiet spell; past it the window is measured anyway (its jit share is printed). */
    private static final long JIT_QUIET_TIMEOUT_NANOS = 15_000_000_000L;

    /**
     * Both ranks idle with an open comm and a read pending on it; prints the CPU used meanwhile, once the JIT has
     * finished compiling what the timed phases made hot ({@link JitQuiet}), and the share of it the JIT still used.
     */
    private static void idle(MpiRuntime mpi, CommOptions options, int seconds) throws Exception {
        Comm comm = mpi.rank() == 0 ? Comms.connect(Address.mpi(1), options) : null;
        Thread reader = comm == null ? null : Thread.ofVirtual().start(() -> {
            try {
                comm.read();
            } catch (CommClosedException expected) {
                // closed at the end of the idle period
            }
        });
        // The first use of the management bean and of the gauges loads and compiles their code (the bean parses
        // /proc with regular expressions, links method handles): here, not inside the window.
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        os.getProcessCpuTime();
        TransportGauges.snapshot();
        JitQuiet.compilerCpuNanos();
        Thread.sleep(1_000);
        // A rank still compiling what the timed phases made hot is not idle: C2 compiles of up to half a second each
        // landed in the window after 64 MiB transfers (7-13% of a core over 3 s while the engine made 2 passes a second).
        boolean jitQuiet = JitQuiet.await(JIT_QUIET_NANOS, JIT_QUIET_TIMEOUT_NANOS);
        TransportGauges.snapshot(); // starts the engine's gauge interval here
        long jitStart = JitQuiet.compilerCpuNanos();
        long cpuStart = os.getProcessCpuTime();
        long wallStart = System.nanoTime();
        Thread.sleep(seconds * 1_000L);
        long cpu = os.getProcessCpuTime() - cpuStart;
        long jit = JitQuiet.compilerCpuNanos() - jitStart;
        long wall = System.nanoTime() - wallStart;
        Map<String, Double> engine = TransportGauges.snapshot().getOrDefault(ProgressEngine.GAUGES, Map.of());
        System.out.println(String.format(Locale.ROOT, "IDLE {\"backend\":\"mpi\",\"rank\":%d,\"idle_seconds\":%d,"
                + "\"idle_cpu_percent_of_core\":%.2f,\"jit_cpu_percent_of_core\":%.2f,\"jit_quiet_before\":%b,"
                + "\"engine_idle_fraction\":%.4f,\"engine_passes_per_second\":%.1f}",
                mpi.rank(), seconds, 100.0 * cpu / wall, 100.0 * jit / wall, jitQuiet,
                engine.getOrDefault("idle_fraction", Double.NaN), engine.getOrDefault("passes_per_second", Double.NaN)));
        System.out.flush();
        if (comm != null) {
            comm.close();
            reader.join(5_000);
        }
    }
}
