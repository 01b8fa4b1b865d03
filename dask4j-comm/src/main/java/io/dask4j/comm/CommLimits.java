package io.dask4j.comm;

import java.time.Duration;
import java.util.Objects;

/**
 * What one peer may take of this process, beyond {@link CommOptions#maxMessageBytes()} (the most one connection may
 * have in flight, since a comm reads one message at a time). Immutable; part of {@link CommOptions}.
 *
 * @param readBudget the bytes all comms holding it may have allocated at once for messages still arriving (default:
 *     the process's, {@link ReadBudget#process()}); see {@link ReadBudget}
 * @param messageStallTimeout how long a started message may go without a byte arriving before its comm is aborted,
 *     its budget released and its reader failed (tcp; default 60 s; zero: no limit). Counted per read, so a slow
 *     but live peer keeps a large message going as long as it takes.
 * @param maxHandshaking most comms one listener handshakes at once (default 256): a connection past it drops the
 *     oldest one still handshaking, so idle connections cannot lock newcomers out; each is dropped anyway when its
 *     handshake times out ({@link CommOptions#handshakeTimeout()}).
 */
public record CommLimits(ReadBudget readBudget, Duration messageStallTimeout, int maxHandshaking) {

    public static final Duration DEFAULT_MESSAGE_STALL_TIMEOUT = Duration.ofSeconds(60);
    public static final int DEFAULT_MAX_HANDSHAKING = 256;

    public CommLimits {
        Objects.requireNonNull(readBudget, "readBudget");
        Objects.requireNonNull(messageStallTimeout, "messageStallTimeout");
        if (messageStallTimeout.isNegative()) {
            throw new IllegalArgumentException("messageStallTimeout must not be negative: " + messageStallTimeout);
        }
        if (maxHandshaking < 1) {
            throw new IllegalArgumentException("maxHandshaking must be at least 1: " + maxHandshaking);
        }
    }

    /** The defaults: the process's read budget, 60 s, 256. */
    public static CommLimits defaults() {
        return new CommLimits(ReadBudget.process(), DEFAULT_MESSAGE_STALL_TIMEOUT, DEFAULT_MAX_HANDSHAKING);
    }

    public CommLimits withReadBudget(ReadBudget budget) {
        return new CommLimits(budget, messageStallTimeout, maxHandshaking);
    }

    public CommLimits withMessageStallTimeout(Duration timeout) {
        return new CommLimits(readBudget, timeout, maxHandshaking);
    }

    public CommLimits withMaxHandshaking(int n) {
        return new CommLimits(readBudget, messageStallTimeout, n);
    }
}
