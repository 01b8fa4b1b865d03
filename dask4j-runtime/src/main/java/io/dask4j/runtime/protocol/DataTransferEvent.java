package io.dask4j.runtime.protocol;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * A JFR event per transfer of values between a worker and a peer: a worker fetching task inputs from a peer worker
 * ({@code fetch}), the client gathering results from a worker ({@code gather}) or scattering values to one ({@code
 * scatter}); one request and its reply each. Fields: kind, bytes (the values' sizes as the holder measured them), keys
 * moved, peer, transport, duration. Disabled unless a recording enables {@code io.dask4j.DataTransfer}; when disabled
 * nothing is built. The thread that makes the transfer owns its event, from {@link #start} to {@link #finish}.
 */
@Name("io.dask4j.DataTransfer")
@Label("Data Transfer")
@Category({"dask4j", "Tasks"})
@Description("Values moved between a worker and a peer worker (fetch) or the client (gather, scatter)")
@Enabled(false)
@StackTrace(false)
public final class DataTransferEvent extends Event {
    /** A worker fetched task inputs from a peer worker. */
    public static final String FETCH = "fetch";
    /** The client fetched results from a worker. */
    public static final String GATHER = "gather";
    /** The client sent values to a worker to hold. */
    public static final String SCATTER = "scatter";

    @Label("Kind")
    @Description("fetch (worker from worker), gather (client from worker) or scatter (client to worker)")
    String kind;
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
    public static DataTransferEvent start() {
        DataTransferEvent e = new DataTransferEvent();
        if (!e.isEnabled()) {
            return null;
        }
        e.begin();
        return e;
    }

    /**
     * Ends {@code e} (null: not recording) and commits it if the recording keeps it: {@code keys} values of {@code
     * bytes} in all moved, by {@code kind} ({@link #FETCH}, {@link #GATHER}, {@link #SCATTER}), with {@code peer}.
     */
    public static void finish(DataTransferEvent e, String kind, String peer, int keys, long bytes) {
        if (e == null) {
            return;
        }
        e.end();
        if (e.shouldCommit()) {
            int scheme = peer.indexOf("://");
            e.kind = kind;
            e.peer = peer;
            e.transport = scheme < 0 ? "" : peer.substring(0, scheme);
            e.keys = keys;
            e.bytes = bytes;
            e.commit();
        }
    }
}
