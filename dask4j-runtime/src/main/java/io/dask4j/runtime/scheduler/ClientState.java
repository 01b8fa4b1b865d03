package io.dask4j.runtime.scheduler;

import io.dask4j.runtime.protocol.MessageSink;

import java.util.HashSet;
import java.util.Set;

/** The scheduler's view of one client: the keys it holds futures for. Owned by the event-loop thread. */
final class ClientState {
    final String id;
    final String scheme;
    final Outbox sink;
    final Set<TaskState> wants = new HashSet<>();

    ClientState(String id, String scheme, MessageSink sink) {
        this.id = id;
        this.scheme = scheme;
        this.sink = Outbox.forClient(sink);
    }

    @Override
    public String toString() {
        return "Client[" + id + "]";
    }
}
