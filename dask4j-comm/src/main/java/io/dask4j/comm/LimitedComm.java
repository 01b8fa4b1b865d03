package io.dask4j.comm;

/**
 * A raw comm that accepts only small messages until its handshake has succeeded, so that a peer that
 * has not authenticated cannot make this process allocate a large buffer by announcing a large frame
 * (the configured {@link CommOptions#maxMessageBytes()} is 4 GiB by default). Backends whose reads
 * allocate from announced lengths (tcp) implement it; the core {@code Handshake} lifts the limit once the
 * peer has proven itself. Called from the handshaking thread only, before the comm is handed out.
 */
public interface LimitedComm extends Comm {

    /** What a raw comm accepts before the handshake: handshake messages are a few hundred bytes. */
    long HANDSHAKE_MAX_MESSAGE_BYTES = 64 << 10;

    /** From now on, accept messages up to {@code maxMessageBytes}. */
    void liftHandshakeLimit(long maxMessageBytes);
}
