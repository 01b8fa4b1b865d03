package io.dask4j.mpi.binding;

/** MPI thread support levels; {@link #ordinal()} is the MPI value in both ABI families (0..3). */
public enum ThreadLevel {
    SINGLE, FUNNELED, SERIALIZED, MULTIPLE;

    public static ThreadLevel of(int value) {
        if (value < 0 || value >= values().length) {
            throw new MpiException("unknown MPI thread level " + value);
        }
        return values()[value];
    }
}
