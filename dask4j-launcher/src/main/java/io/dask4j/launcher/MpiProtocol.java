package io.dask4j.launcher;

import java.util.Locale;

/**
 * How the ranks of an MPI-launched cluster talk to each other once started.
 *
 * <ul>
 *   <li>{@link #AUTO} (the default): each connection picks its transport by the two ranks' hosts, mpi between
 *       ranks of one host and tcp between hosts (where Open MPI and MPICH themselves go over TCP sockets, and
 *       dask4j's own tcp is the faster of the two). Each rank then listens on mpi and, when the job spans hosts,
 *       also on tcp at its host's address (authenticated with the job's secret). A job on one host is exactly
 *       {@link #MPI}: no tcp listener;</li>
 *   <li>{@link #MPI}: scheduler, workers and client use {@code mpi://<rank>} comms, whatever the hosts;</li>
 *   <li>{@link #TCP}: MPI is only used to start up (the scheduler broadcasts its {@code tcp://} address
 *       over MPI) and every comm is TCP, for comparison or for an MPI without thread support.</li>
 * </ul>
 */
public enum MpiProtocol {
    AUTO, MPI, TCP;

    /** This protocol as the command line spells it: {@code "auto"}, {@code "mpi"} or {@code "tcp"}. */
    public String scheme() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** True when ranks listen on and connect over {@code mpi://} (to all peers, or to those of their host). */
    public boolean usesMpiComms() {
        return this != TCP;
    }

    /** Parses {@code auto}, {@code mpi} or {@code tcp} (any case). */
    public static MpiProtocol parse(String text) {
        return switch (text.strip().toLowerCase(Locale.ROOT)) {
            case "auto" -> AUTO;
            case "mpi" -> MPI;
            case "tcp" -> TCP;
            default -> throw new IllegalArgumentException("unknown protocol '" + text + "': expected auto, mpi or tcp");
        };
    }
}
