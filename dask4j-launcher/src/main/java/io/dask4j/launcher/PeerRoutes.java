package io.dask4j.launcher;

import io.dask4j.comm.Address;
import io.dask4j.comm.AddressRoutes;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * The per-peer transport choice of an MPI job under {@link MpiProtocol#AUTO} that spans hosts: a peer on this
 * rank's host is dialed over {@code mpi://} and a peer on another host over {@code tcp://}, whichever of its
 * addresses the scheduler, a worker or a client was told. An endpoint (the scheduler, or one rank's worker)
 * listening on both is {@linkplain #learn learned} with all its addresses; an address of no learned endpoint is
 * dialed as given, and so is one of an endpoint without the chosen transport (mpi reaches every rank, only slower
 * between hosts). Pure: the choice depends only on the ranks' hosts and addresses, the same on every run.
 *
 * <p>Threads: {@link #learn} from the rank's main thread during start-up; {@link #route} from any thread that
 * connects, concurrently.
 */
final class PeerRoutes implements AddressRoutes {
    private final int self;
    private final List<String> hosts;
    /** Every learned address, to the address chosen for its endpoint. */
    private final Map<Address, Address> routes = new ConcurrentHashMap<>();
    /** The transport chosen for each rank's endpoints (for the log), by rank. */
    private final Map<Integer, String> chosen = new ConcurrentHashMap<>();

    /** Routes for rank {@code self} of a job whose ranks run on {@code hosts} (by rank). */
    PeerRoutes(int self, List<String> hosts) {
        if (self < 0 || self >= hosts.size()) {
            throw new IllegalArgumentException("rank " + self + " is not one of the " + hosts.size() + " ranks");
        }
        this.self = self;
        this.hosts = List.copyOf(hosts);
    }

    /**
     * The address to dial for an endpoint on {@code peerHost} that listens on {@code addresses}, from a rank on
     * {@code host}: its mpi address on the same host, else its tcp (or tls) address, else its first.
     */
    static Address choose(String host, String peerHost, List<Address> addresses) {
        if (addresses.isEmpty()) {
            throw new IllegalArgumentException("an endpoint without addresses");
        }
        boolean sameHost = host.equals(peerHost);
        return addresses.stream().filter(a -> sameHost ? a.scheme().equals("mpi") : RankListeners.isSocket(a.scheme()))
                .findFirst().orElse(addresses.getFirst());
    }

    /** Learns an endpoint of {@code rank} that listens on {@code addresses}: each of them routes to the chosen one. */
    void learn(int rank, List<Address> addresses) {
        Address to = choose(hosts.get(self), hosts.get(rank), addresses);
        for (Address a : addresses) {
            routes.put(a, to);
        }
        if (rank != self) {
            chosen.merge(rank, to.scheme(), (a, b) -> a.equals(b) ? a : a + "+" + b);
        }
    }

    @Override
    public Address route(Address advertised) {
        return routes.getOrDefault(Objects.requireNonNull(advertised, "advertised"), advertised);
    }

    /**
     * The choice for the log, by transport: {@code mpi to ranks [0, 1] (host n1); tcp to ranks [3, 4] (host n2)}
     * (ranks without a learned endpoint left out).
     */
    String describe() {
        Map<String, TreeSet<Integer>> byTransport = new TreeMap<>();
        chosen.forEach((rank, transport) -> byTransport.computeIfAbsent(transport, t -> new TreeSet<>()).add(rank));
        List<String> parts = new ArrayList<>();
        byTransport.forEach((transport, ranks) -> {
            TreeSet<String> on = ranks.stream().map(hosts::get).collect(Collectors.toCollection(TreeSet::new));
            parts.add(transport + " to ranks " + ranks + " (host" + (on.size() > 1 ? "s " : " ") + String.join(", ", on) + ")");
        });
        return parts.isEmpty() ? "no peers" : String.join("; ", parts);
    }

    @Override
    public String toString() {
        return "PeerRoutes[rank " + self + ": " + describe() + "]";
    }
}
