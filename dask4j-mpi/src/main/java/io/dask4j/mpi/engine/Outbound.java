package io.dask4j.mpi.engine;

/**
 * Work queued for the engine by any thread ({@link ProgressEngine#submit}); {@link #post} runs later on the
 * thread that drives the engine, under its lock, and typically calls {@link ProgressEngine#isend}.
 */
@FunctionalInterface
public interface Outbound {
    void post(ProgressEngine engine);
}
