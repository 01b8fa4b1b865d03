package io.dask4j.comm.stats;

/**
 * Traffic between this process and one peer over one transport. Immutable.
 *
 * @param peer the peer's address as the comm reports it, or {@link CommTraffic#OTHER_PEERS} /
 *     {@link CommTraffic#CLOSED_PEERS} for the aggregate rows
 * @param identity who the peer said it is in the handshake ("" for aggregate rows)
 * @param openComms comms to this peer open now
 */
public record PeerTraffic(String transport, String peer, String identity, int openComms, TrafficCounts counts) {
}
