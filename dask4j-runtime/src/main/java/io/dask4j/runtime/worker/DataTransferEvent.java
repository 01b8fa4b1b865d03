package io.dask4j.runtime.worker;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * A JFR event per transfer of task inputs from a peer worker (one {@code get-data} request and its reply): bytes
 * (the values' sizes), keys, peer, transport, duration. Disabled unless a recording enables {@code
 * io.dask4j.DataTransfer}; when disabled nothing is built. The fetching thread owns its event.
 */
@Name("io.dask4j.DataTransfer")
@Label("Data Transfer")
@Category({"dask4j", "Tasks"})
@Description("Task inputs fetched from a peer worker")
@Enabled(false)
@StackTrace(false)
final class DataTransferEvent extends Event {
    @Label("Bytes")
    @DataAmount
    long bytes;
    @Label("Keys")
    int keys;
    @Label("Peer")
    String peer;
    @Label("Transport")
    String transport;

    /** An event begun now if recordings want transfers, else null. */
    static DataTransferEvent start() {
        DataTransferEvent e = new DataTransferEvent();
        if (!e.isEnabled()) {
            return null;
        }
        e.begin();
        return e;
    }

    /** Ends {@code e} (null: not recording) and commits it if the recording keeps it. */
    static void finish(DataTransferEvent e, String peer, int keys, long bytes) {
        if (e == null) {
            return;
        }
        e.end();
        if (e.shouldCommit()) {
            int scheme = peer.indexOf("://");
            e.peer = peer;
            e.transport = scheme < 0 ? "" : peer.substring(0, scheme);
            e.keys = keys;
            e.bytes = bytes;
            e.commit();
        }
    }
}
