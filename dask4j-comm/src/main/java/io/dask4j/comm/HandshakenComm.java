package io.dask4j.comm;

/**
 * A raw backend comm that passed the {@link Handshake}; remembers who the peer said it is. Adds one
 * virtual call per operation and nothing else. Thread rules are those of {@link Comm}.
 */
final class HandshakenComm implements Comm {

    private final Comm raw;
    private final String peerIdentity;

    HandshakenComm(Comm raw, String peerIdentity) {
        this.raw = raw;
        this.peerIdentity = peerIdentity;
    }

    @Override
    public Message read() {
        return raw.read();
    }

    @Override
    public void write(Message message) {
        raw.write(message);
    }

    @Override
    public void close() {
        raw.close();
    }

    @Override
    public void abort() {
        raw.abort();
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
