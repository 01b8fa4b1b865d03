package io.dask4j.runtime.protocol;

import io.dask4j.comm.Message;

/**
 * Where a component sends messages to one peer without blocking: a {@link BatchedSend} in a running
 * cluster, a list in unit tests of the scheduler's state machine. Implementations are thread-safe.
 */
@FunctionalInterface
public interface MessageSink {
    void send(Message message);
}
