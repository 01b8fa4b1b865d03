package io.dask4j.mpi.engine;

import io.dask4j.comm.config.ConfigSource;
import io.dask4j.comm.config.Settings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * Tuning of the {@link ProgressEngine}.
 *
 * @param spins idle passes that only call {@code Thread.onSpinWait()} before yielding
 * @param yieldNanos how long after the last work the engine keeps yielding (not parking): replies to a
 *     message just sent or received usually come within this window, and a yield gives the CPU to any
 *     thread that wants it while a park costs ~100 us to come back from on a small VM
 * @param minParkNanos first park of the backoff (doubles at each idle pass up to the cap)
 * @param maxParkNanos the park cap: an idle rank wakes about this often, so it bounds the latency of a
 *     message that arrives while nobody waits for it, and sets the idle CPU (this VM's park has a ~100 us
 *     floor)
 * @param deepIdleNanos after this long without any work, the park cap rises to {@code deepParkNanos}
 * @param deepParkNanos the park cap of a rank that has been quiet for {@code deepIdleNanos}: bounds the
 *     extra latency of the first message that reaches a quiet rank while no local thread waits actively
 * @param pureSpin never park nor yield (latency-critical jobs with a core per rank to spare)
 * @param callerSpinNanos how long a platform thread that waits for a reply drives progress itself
 *     (caller-runs) before it parks and leaves progress to the engine thread; 0 disables caller-runs
 * @param eagerBytes messages up to this size are received with a blocking MPI_Mrecv into scratch memory, as
 *     a critical downcall (no safepoint while it runs): it must be below the MPI library's eager limit, so
 *     that a matched message has arrived whole (see {@link #EAGER_BYTES})
 * @param doorbellParkNanos how long an idle engine sleeps when every rank of the job can wake it through
 *     its {@link Doorbells} and it has no request outstanding (a message from a neighbour wakes it at once)
 * @param settleNanos how long after its last work, send or ring an engine keeps to short parks before such a
 *     doorbell sleep (in case MPI needs a few more progress calls to show what a ring announced)
 * @param adaptiveYieldNanos on an oversubscribed node running Open MPI, the engine turns Open MPI's idle
 *     {@code sched_yield()} on while its typical idle spell is shorter than this (messages in quick
 *     succession) and off otherwise ({@link ProgressEngine#adaptOpenMpiIdleYield}); 0 keeps it off
 */
public record EngineOptions(int spins, long yieldNanos, long minParkNanos, long maxParkNanos, long deepIdleNanos,
                            long deepParkNanos, boolean pureSpin, long callerSpinNanos, int eagerBytes,
                            long doorbellParkNanos, long settleNanos, long adaptiveYieldNanos) {

    /**
     * Default {@code eagerBytes}: 4096 minus 128 bytes of room for the MPI library's own headers. Open MPI's
     * shared-memory BTL (vader / sm, {@code btl_vader_eager_limit} = 4 KiB) counts its headers in its eager limit:
     * measured with {@code btl_vader_single_copy_mechanism none}, MPI_Mrecv of a matched 4048-4096 byte message
     * waited until the sender made progress (2 s in the test), while 4032 bytes returned at once. During such a
     * wait the critical downcall keeps the whole JVM from reaching a safepoint. MPICH's ch4 shared-memory eager
     * cells are 16 KiB (3.4) or 68 KiB (4.x) and its ch3 nemesis cells 64 KiB, so Open MPI's limit is the lower one
     * (measured again in C, sender idle 1 s: Open MPI 3968-4032 bytes at once, 4048 after 0.66 s; MPICH 4.0.2 all at once).
     */
    public static final int EAGER_BYTES = 4096 - 128;
    /** Open MPI's shared-memory eager limit, headers included ({@code btl_vader_eager_limit}, {@code btl_sm_eager_limit}). */
    static final int OPEN_MPI_SHM_EAGER_LIMIT = 4096;
    /** The smallest MPICH shared-memory eager cell ({@code MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE} in MPICH 3.4). */
    static final int MPICH_SHM_EAGER_CELL = 16384;
    /** The most header bytes Open MPI was measured to add within its eager limit (4032 bytes still arrived eagerly). */
    static final int OPEN_MPI_MEASURED_HEADER_BYTES = 4096 - 4032;

    public EngineOptions {
        if (spins < 0 || yieldNanos < 0 || minParkNanos <= 0 || maxParkNanos < minParkNanos || deepParkNanos < maxParkNanos
                || deepIdleNanos < 0 || callerSpinNanos < 0 || eagerBytes < 64 || doorbellParkNanos < 0
                || settleNanos < 0 || adaptiveYieldNanos < 0) {
            throw new IllegalArgumentException("bad engine options: " + spinsText(spins, yieldNanos, minParkNanos, maxParkNanos)
                    + " deepParkNanos=" + deepParkNanos);
        }
    }

    /**
     * Defaults for this node (50 spins, yield for 100 us, park 1 us doubling to 1 ms, 20 ms after 1 s of quiet,
     * caller-runs for 200 us, 50 ms sleeps on a doorbell after 5 ms of settling), overridden by the settings of {@code
     * source}: system properties {@code dask4j.mpi.spins}, {@code .yieldMicros}, {@code .maxParkMicros}, {@code
     * .deepIdleMillis}, {@code .deepParkMicros}, {@code .pureSpin}, {@code .callerSpinMicros}, {@code
     * .doorbellParkMicros}, {@code .settleMicros}, {@code .adaptiveYieldMicros} (5 ms). When more ranks share this
     * node than it has cores (as under {@code mpirun --oversubscribe} on a laptop; the launcher's variables in {@code
     * source}'s environment tell), spinning, yielding, caller-runs and settling default to off: a busy-waiting rank
     * would take the core that another rank's tasks need, and so does each wake-up of a short park (measured: the
     * settling parks of five ranks on two cores cost more CPU than the messages they waited for).
     */
    public static EngineOptions defaults(ConfigSource source) {
        return defaults(source, nodeCores());
    }

    /**
     * Cores of the whole node. Not {@code availableProcessors()}: mpirun binds each rank to its own core,
     * and a rank that sees one core would take every job for an oversubscribed one.
     */
    static int nodeCores() {
        try {
            return onlineCpus(Files.readString(Path.of("/sys/devices/system/cpu/online")).strip());
        } catch (IOException | RuntimeException e) {
            return Runtime.getRuntime().availableProcessors();
        }
    }

    /** Counts the CPUs of a Linux cpu list such as {@code 0-3,8,10-11}. */
    static int onlineCpus(String list) {
        int count = 0;
        for (String part : list.split(",")) {
            int dash = part.indexOf('-');
            count += dash < 0 ? 1 : Integer.parseInt(part.substring(dash + 1)) - Integer.parseInt(part.substring(0, dash)) + 1;
        }
        return count;
    }

    /** Whether the launcher put more ranks on this node than it has cores (as {@link #defaults(ConfigSource)} sees it). */
    public static boolean nodeOversubscribed() {
        return localRanks(System.getenv()) > nodeCores();
    }

    /** The defaults for a node of {@code cores} cores, overridden by the {@link Settings} that {@code source} sets. */
    public static EngineOptions defaults(ConfigSource source, int cores) {
        boolean oversubscribed = localRanks(source.environment()) > cores;
        long maxPark = Settings.MAX_PARK_MICROS.longValue(source, 1_000) * 1_000;
        return new EngineOptions(Settings.SPINS.intValue(source, oversubscribed ? 0 : 50),
                Settings.YIELD_MICROS.longValue(source, oversubscribed ? 0 : 100) * 1_000,
                Math.min(1_000, maxPark), maxPark, Settings.DEEP_IDLE_MILLIS.longValue(source, 1_000) * 1_000_000,
                Math.max(maxPark, Settings.DEEP_PARK_MICROS.longValue(source, 20_000) * 1_000),
                Settings.PURE_SPIN.booleanValue(source, false),
                Settings.CALLER_SPIN_MICROS.longValue(source, oversubscribed ? 0 : 200) * 1_000, EAGER_BYTES,
                Settings.DOORBELL_PARK_MICROS.longValue(source, 50_000) * 1_000,
                Settings.SETTLE_MICROS.longValue(source, oversubscribed ? 0 : 5_000) * 1_000,
                // Not longer: at 20 ms the scheduler rank of the 20000² seed workload ran with the yield on, and its
                // engine waited ~260 ms a run in the run queue behind the tasks (~40 ms at 5 ms).
                Settings.ADAPTIVE_YIELD_MICROS.longValue(source, 5_000) * 1_000);
    }

    /** Ranks of this job on this node, as the launcher tells it (Open MPI, MPICH's Hydra); 1 if unknown. */
    static int localRanks(Map<String, String> env) {
        for (String name : new String[]{"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"}) {
            String value = env.get(name);
            if (value != null && value.matches("\\d{1,7}")) {
                return Integer.parseInt(value);
            }
        }
        return 1;
    }

    public EngineOptions withMaxPark(Duration cap) {
        long nanos = cap.toNanos();
        return new EngineOptions(spins, yieldNanos, Math.min(minParkNanos, nanos), nanos, deepIdleNanos,
                Math.max(deepParkNanos, nanos), pureSpin, callerSpinNanos, eagerBytes, doorbellParkNanos, settleNanos,
                adaptiveYieldNanos);
    }

    public EngineOptions withDeepIdle(Duration after, Duration cap) {
        return new EngineOptions(spins, yieldNanos, minParkNanos, maxParkNanos, after.toNanos(), cap.toNanos(), pureSpin,
                callerSpinNanos, eagerBytes, doorbellParkNanos, settleNanos, adaptiveYieldNanos);
    }

    public EngineOptions withPureSpin(boolean spin) {
        return new EngineOptions(spins, yieldNanos, minParkNanos, maxParkNanos, deepIdleNanos, deepParkNanos, spin,
                callerSpinNanos, eagerBytes, doorbellParkNanos, settleNanos, adaptiveYieldNanos);
    }

    public EngineOptions withCallerSpin(Duration spin) {
        return new EngineOptions(spins, yieldNanos, minParkNanos, maxParkNanos, deepIdleNanos, deepParkNanos, pureSpin,
                spin.toNanos(), eagerBytes, doorbellParkNanos, settleNanos, adaptiveYieldNanos);
    }

    private static String spinsText(int spins, long yieldNanos, long minPark, long maxPark) {
        return "spins=" + spins + " yieldNanos=" + yieldNanos + " minParkNanos=" + minPark + " maxParkNanos=" + maxPark;
    }
}
