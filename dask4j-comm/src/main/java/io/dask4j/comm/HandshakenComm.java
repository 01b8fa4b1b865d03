package io.dask4j.comm;

import io.dask4j.comm.stats.CommCounters;
import io.dask4j.comm.stats.CommMessageEvent;
import io.dask4j.comm.stats.CommTraffic;
import io.dask4j.comm.stats.LatencyTrace;
import io.dask4j.comm.stats.WireSize;

/**
 * A raw backend comm that passed the {@link Handshake}; remembers who the peer said it is and counts
 * its traffic ({@link CommTraffic}: each message's wire size, once, whatever the backend). Adds one
 * virtual call and two single-writer counter updates per operation. Thread rules are those of {@link Comm}.
 */
final class HandshakenComm implements Comm {
    private final Comm raw;
    private final String peerIdentity;
    private final CommCounters traffic;
    private final String transport;
    private final String peer;

    HandshakenComm(Comm raw, String peerIdentity) {
        this.raw = raw;
        this.peerIdentity = peerIdentity;
        this.transport = raw.localAddress().scheme();
        this.peer = String.valueOf(raw.peerAddress());
        this.traffic = CommTraffic.open(transport, peer, peerIdentity, this);
    }

    @Override
    public Message read() {
        Message m = raw.read();
        counted(m);
        return m;
    }

    /** Counts a message read (and records it for JFR if it is large and a recording wants it). */
    private void counted(Message m) {
        LatencyTrace.message(m.op(), false);
        long n = WireSize.ofRemembered(m);
        traffic.received(n);
        CommMessageEvent.onMessage(m, n, false, transport, peer);
    }

    /** Push mode of the raw comm, counting each delivered message as {@link #read()} does. */
    @Override
    public Receiving receive(MessageHandler handler) {
        return raw.receive(new MessageHandler() {
            @Override
            public void onMessage(Message message) {
                counted(message);
                handler.onMessage(message);
            }

            @Override
            public void onClose(CommException cause) {
                handler.onClose(cause);
            }
        });
    }

    @Override
    public void write(Message message) {
        LatencyTrace.message(message.op(), true);
        long n = WireSize.beginWrite(message);
        try {
            raw.write(message);
        } finally {
            WireSize.endWrite();
        }
        traffic.sent(n);
        CommMessageEvent.onMessage(message, n, true, transport, peer);
    }

    @Override
    public void close() {
        raw.close();
        traffic.retire();
    }

    @Override
    public void abort() {
        raw.abort();
        traffic.retire();
    }

    @Override
    public boolean isClosed() {
        return raw.isClosed();
    }

    @Override
    public Address localAddress() {
        return raw.localAddress();
    }

    @Override
    public Address peerAddress() {
        return raw.peerAddress();
    }

    @Override
    public String peerIdentity() {
        return peerIdentity;
    }

    @Override
    public String toString() {
        return raw + "[peer '" + peerIdentity + "']";
    }
}
