package io.dask4j.comm;

/**
 * Which address {@link Comms#connect} dials for an address a peer advertised: the identity ({@link #DIRECT}) unless
 * an endpoint knows better, as an MPI job that reaches the ranks of its own host over {@code mpi://} and the others
 * over {@code tcp://} does. A route must lead to the same peer (the handshake still authenticates it); addresses it
 * does not know are returned unchanged.
 *
 * <p>Implementations are called from any thread that connects, concurrently, and must be thread-safe.
 */
@FunctionalInterface
public interface AddressRoutes {

    /** Dials every address as given. */
    AddressRoutes DIRECT = advertised -> advertised;

    /** The address to dial for {@code advertised}; never null. */
    Address route(Address advertised);
}
