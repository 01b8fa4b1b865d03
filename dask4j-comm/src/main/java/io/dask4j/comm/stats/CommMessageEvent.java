package io.dask4j.comm.stats;

import io.dask4j.comm.Message;
import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.SettingDefinition;
import jdk.jfr.StackTrace;

/**
 * A JFR event per comm message of at least {@code minSize} wire bytes (a setting, default 1 MB: {@code
 * io.dask4j.CommMessage#minSize=64 kB}), read or written: op, bytes, direction, transport, peer. Disabled unless a
 * recording enables {@code io.dask4j.CommMessage}; when disabled a message costs one check and nothing is built.
 * Called by a comm's reader and writer threads.
 */
@Name("io.dask4j.CommMessage")
@Label("Large Comm Message")
@Category({"dask4j", "Comm"})
@Description("A comm message at or above a size threshold")
@Enabled(false)
@StackTrace(false)
public final class CommMessageEvent extends Event {
    @Label("Op")
    String op;
    @Label("Bytes")
    @DataAmount
    long bytes;
    @Label("Direction")
    String direction;
    @Label("Transport")
    String transport;
    @Label("Peer")
    String peer;

    @Label("Minimum Size")
    @Description("Record messages of at least this many wire bytes")
    @SettingDefinition
    boolean minSize(MinSizeSetting setting) {
        return bytes >= setting.minBytes();
    }

    /** Records {@code message} of {@code bytes} if a recording wants messages that large. */
    public static void onMessage(Message message, long bytes, boolean out, String transport, String peer) {
        CommMessageEvent e = new CommMessageEvent();
        if (!e.isEnabled()) {
            return;
        }
        e.bytes = bytes;
        if (e.shouldCommit()) {
            e.op = message.op();
            e.direction = out ? "out" : "in";
            e.transport = transport;
            e.peer = peer;
            e.commit();
        }
    }
}
