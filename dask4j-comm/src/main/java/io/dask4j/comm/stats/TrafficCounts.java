package io.dask4j.comm.stats;

/**
 * Bytes and messages in each direction, as counted on handshaken comms (wire size: prelude, header and
 * frames). Immutable.
 */
public record TrafficCounts(long bytesIn, long bytesOut, long messagesIn, long messagesOut) {
    public static final TrafficCounts ZERO = new TrafficCounts(0, 0, 0, 0);

    public TrafficCounts plus(TrafficCounts o) {
        return new TrafficCounts(bytesIn + o.bytesIn, bytesOut + o.bytesOut, messagesIn + o.messagesIn,
                messagesOut + o.messagesOut);
    }

    public long bytes() {
        return bytesIn + bytesOut;
    }
}
