package io.dask4j.bench.report;

/**
 * How long, in seconds, one benchmark of each section of a report may run before it is killed: a comm job (one
 * message size under one MPI, or all sizes over tcp), a {@code bench tasks} run, a seed run on a dask4j backend,
 * the seed on Python Dask. Each is several times what the benchmark takes on a loaded 2-core machine, so that only a
 * stuck benchmark hits it, and the whole report has a bound. Immutable.
 */
record Bounds(long comm, long tasks, long seed, long python) {
    /** On a shared 2-core VM: comm jobs 20-90 s, tasks 20-60 s, seed 70-140 s; Python Dask's seed is slower. */
    static final Bounds DEFAULT = new Bounds(240, 420, 600, 900);

    Bounds {
        if (comm < 1 || tasks < 1 || seed < 1 || python < 1) {
            throw new IllegalArgumentException("a bound must be at least 1 s");
        }
    }

    /** The same bound for every benchmark ({@code --timeout}). */
    static Bounds all(long seconds) {
        return new Bounds(seconds, seconds, seconds, seconds);
    }
}
