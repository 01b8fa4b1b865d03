package io.dask4j.runtime.scheduler;

import io.dask4j.runtime.protocol.MessageSink;

/**
 * The scheduler's view of one client. Which keys it holds futures for is kept on the tasks ({@link
 * TaskState#wantedBy}), not in a set here: a set of every wanted task cost a hash insert and remove per task on
 * the event loop (about a tenth of the scheduler's time on a no-op map), for the one rare moment it saves a scan,
 * the client's departure. Owned by the event-loop thread.
 */
final class ClientState {
    final String id;
    final String scheme;
    final Outbox sink;

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
