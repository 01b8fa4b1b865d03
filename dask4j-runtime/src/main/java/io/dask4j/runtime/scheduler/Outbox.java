package io.dask4j.runtime.scheduler;

import io.dask4j.comm.Message;
import io.dask4j.runtime.protocol.ColumnBatch;
import io.dask4j.runtime.protocol.MessageSink;

/**
 * The scheduler's outgoing stream to one peer: per-task hot messages accumulate in a {@link
 * ColumnBatch}, other messages pass straight on. Before any other message the columns are flushed, so
 * the peer sees everything in the order the state machine emitted it. Event-loop thread only.
 */
final class Outbox implements MessageSink {
    static final String[] COMPUTE_COLUMNS = {"keys", "runs", "fns", "args", "prios", "deps", "fnbs"};
    static final String[] IN_MEMORY_COLUMNS = {"keys", "nbytes", "workers"};

    private final MessageSink sink;
    final ColumnBatch bulk;
    private final ColumnBatch freed = new ColumnBatch(io.dask4j.runtime.protocol.Ops.FREE_KEYS, "keys");

    Outbox(MessageSink sink, ColumnBatch bulk) {
        this.sink = sink;
        this.bulk = bulk;
    }

    /** Adds a row to the hot columns (after flushing freed keys, to keep the order). */
    void add(Object... row) {
        if (!freed.isEmpty()) {
            sink.send(freed.take());
        }
        bulk.add(row);
    }

    /** Tells the worker to drop {@code key} (coalesced with other frees, in order with computes). */
    void free(String key) {
        if (!bulk.isEmpty()) {
            sink.send(bulk.take());
        }
        freed.add(key);
    }

    static Outbox forWorker(MessageSink sink) {
        return new Outbox(sink, new ColumnBatch(io.dask4j.runtime.protocol.Ops.COMPUTE_TASKS, 2, COMPUTE_COLUMNS));
    }

    static Outbox forClient(MessageSink sink) {
        return new Outbox(sink, new ColumnBatch(io.dask4j.runtime.protocol.Ops.KEYS_IN_MEMORY, 2, IN_MEMORY_COLUMNS));
    }

    @Override
    public void send(Message message) {
        flush();
        sink.send(message);
    }

    void flush() {
        Message m = bulk.take();
        if (m != null) {
            sink.send(m);
        }
        m = freed.take();
        if (m != null) {
            sink.send(m);
        }
    }
}
