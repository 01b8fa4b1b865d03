package io.dask4j.launcher;

import io.dask4j.comm.Address;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;

/**
 * Where the scheduler and the workers of an MPI job listen, from the protocol, whether the ranks span hosts and
 * whether clients outside the job must reach them. Pure; the same on every rank.
 *
 * <p>The socket listeners (for outside clients, and between hosts) use {@code tls://} when the job's comm options
 * carry TLS settings ({@code --tls-*}, {@code DASK4J_TLS_*}), else {@code tcp://}: a job whose clients or hosts
 * talk over a network others can watch encrypts all of that traffic, never only part of it.
 *
 * @param protocol the job's protocol
 * @param acrossHosts whether the ranks run on more than one host
 * @param outsideClients whether the scheduler (and the workers) also listen on tcp for clients outside the job
 *     ({@link MpiClusterOptions#tcpListener()})
 * @param socketScheme {@code "tls"} or {@code "tcp"}: the scheme of every socket listener
 */
record RankListeners(MpiProtocol protocol, boolean acrossHosts, boolean outsideClients, String socketScheme) {

    RankListeners {
        if (!isSocket(socketScheme)) {
            throw new IllegalArgumentException("socket listeners are tcp or tls, not " + socketScheme);
        }
    }

    /** The listeners of a job under {@code options} whose ranks run on {@code hosts} (by rank). */
    static RankListeners of(MpiClusterOptions options, List<String> hosts) {
        return new RankListeners(options.protocol(), new HashSet<>(hosts).size() > 1, options.tcpListener(),
                options.comm().tls() != null ? "tls" : "tcp");
    }

    /** Whether {@code scheme} is one of a socket listener ({@code tcp} or {@code tls}): reachable from other hosts. */
    static boolean isSocket(String scheme) {
        return "tcp".equals(scheme) || "tls".equals(scheme);
    }

    /** True when each connection picks mpi or tcp by the peers' hosts ({@link MpiProtocol#AUTO} across hosts). */
    boolean perPeer() {
        return protocol == MpiProtocol.AUTO && acrossHosts;
    }

    /** The scheduler's listeners on rank {@code rank}: mpi first when the job uses mpi, then tcp (or tls) where needed. */
    List<Address> scheduler(int rank, String tcpHost, int outsidePort) {
        List<Address> listen = new ArrayList<>();
        if (protocol.usesMpiComms()) {
            listen.add(Address.mpi(rank));
        }
        // Clients outside the job, every rank under tcp, and the ranks of other hosts under auto reach it over tcp.
        if (outsideClients || protocol == MpiProtocol.TCP || perPeer()) {
            listen.add(Address.hostPort(socketScheme, tcpHost, outsideClients ? outsidePort : 0));
        }
        return listen;
    }

    /** The listeners of the worker on {@code rank}: its mpi address first when it has one (it is its id). */
    List<Address> worker(RankLayout layout, int rank, String tcpHost) {
        List<Address> listen = new ArrayList<>();
        // mpi://<rank> has no ports: one listener per rank, so a worker sharing the scheduler's rank
        // (non-exclusive layout) listens on TCP; its peers reach it there. Without a scheduler rank the
        // workers join a scheduler outside the job, over tcp.
        if (protocol.usesMpiComms() && layout.hasScheduler() && rank != layout.schedulerRank()) {
            listen.add(Address.mpi(rank));
        }
        // Under auto across hosts, the workers of other hosts reach this one over tcp.
        if (listen.isEmpty() || outsideClients || perPeer()) {
            listen.add(Address.hostPort(socketScheme, tcpHost, 0));
        }
        return listen;
    }
}
