package io.dask4j.launcher;

import java.util.Locale;

/**
 * How the ranks of an MPI-launched cluster talk to each other once started.
 *
 * <ul>
 *   <li>{@link #MPI}: scheduler, workers and client use {@code mpi://<rank>} comms (the default);</li>
 *   <li>{@link #TCP}: MPI is only used to start up (the scheduler broadcasts its {@code tcp://} address
 *       over MPI) and every comm is TCP, for comparison or for an MPI without thread support.</li>
 * </ul>
 */
public enum MpiProtocol {
    MPI, TCP;

    /** The comm scheme of this protocol: {@code "mpi"} or {@code "tcp"}. */
    public String scheme() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses {@code mpi} or {@code tcp} (any case). */
    public static MpiProtocol parse(String text) {
        return switch (text.strip().toLowerCase(Locale.ROOT)) {
            case "mpi" -> MPI;
            case "tcp" -> TCP;
            default -> throw new IllegalArgumentException("unknown protocol '" + text + "': expected mpi or tcp");
        };
    }
}
