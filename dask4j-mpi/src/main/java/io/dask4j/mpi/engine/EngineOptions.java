package io.dask4j.mpi.engine;

import java.time.Duration;

/**
 * Tuning of the {@link ProgressEngine}.
 *
 * @param spins idle passes that only call {@code Thread.onSpinWait()} before yielding
 * @param yields idle passes that yield before parking
 * @param minParkNanos first park of the backoff (doubles at each idle pass up to the cap)
 * @param maxParkNanos the park cap: an idle rank wakes about this often, so it bounds the latency of a
 *     message that arrives while nobody waits for it, and sets the idle CPU (this VM's park has a ~100 us
 *     floor, DESIGN.md §5)
 * @param pureSpin never park nor yield (latency-critical jobs with a core per rank to spare)
 * @param callerSpinNanos how long a platform thread that waits for a reply drives progress itself
 *     (caller-runs) before it parks and leaves progress to the engine thread; 0 disables caller-runs
 * @param eagerBytes messages up to this size are received with a blocking MPI_Mrecv into scratch memory
 */
public record EngineOptions(int spins, int yields, long minParkNanos, long maxParkNanos, boolean pureSpin,
                            long callerSpinNanos, int eagerBytes) {

    public EngineOptions {
        if (spins < 0 || yields < 0 || minParkNanos <= 0 || maxParkNanos < minParkNanos || callerSpinNanos < 0
                || eagerBytes < 64) {
            throw new IllegalArgumentException("bad engine options: " + spinsText(spins, yields, minParkNanos, maxParkNanos));
        }
    }

    /** Defaults, overridable by system properties {@code dask4j.mpi.spins}, {@code .yields}, {@code .maxParkMicros},
     * {@code .pureSpin}, {@code .callerSpinMicros}. */
    public static EngineOptions defaults() {
        return new EngineOptions(Integer.getInteger("dask4j.mpi.spins", 50), Integer.getInteger("dask4j.mpi.yields", 5),
                1_000, Long.getLong("dask4j.mpi.maxParkMicros", 1_000) * 1_000, Boolean.getBoolean("dask4j.mpi.pureSpin"),
                Long.getLong("dask4j.mpi.callerSpinMicros", 200) * 1_000, 4096);
    }

    public EngineOptions withMaxPark(Duration cap) {
        return new EngineOptions(spins, yields, Math.min(minParkNanos, cap.toNanos()), cap.toNanos(), pureSpin, callerSpinNanos, eagerBytes);
    }

    public EngineOptions withPureSpin(boolean spin) {
        return new EngineOptions(spins, yields, minParkNanos, maxParkNanos, spin, callerSpinNanos, eagerBytes);
    }

    public EngineOptions withCallerSpin(Duration spin) {
        return new EngineOptions(spins, yields, minParkNanos, maxParkNanos, pureSpin, spin.toNanos(), eagerBytes);
    }

    private static String spinsText(int spins, int yields, long minPark, long maxPark) {
        return "spins=" + spins + " yields=" + yields + " minParkNanos=" + minPark + " maxParkNanos=" + maxPark;
    }
}
