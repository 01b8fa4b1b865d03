package io.dask4j.comm.tcp;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The second half of a graceful close. Closing a socket while input from the peer sits unread makes the kernel
 * reset the connection, and a reset destroys what we wrote that the peer has not read yet: the tail of a large
 * last message. So after our FIN, input is read and dropped until the peer closes its side too (a dask4j peer
 * does once its reader meets the end of our stream), and only then is the socket closed; a peer that never
 * closes gets the reset after {@link #LINGER_SECONDS}, on the {@link TcpTimer}. Stateless; any thread.
 */
final class LingeringClose {
    /** Long enough for a peer to read a large last message on a slow link; only misbehaving peers wait it out. */
    static final long LINGER_SECONDS = 10;

    private LingeringClose() {
    }

    /** Runs {@code closeNow} after the linger time unless cancelled first. */
    static ScheduledFuture<?> deadline(Runnable closeNow) {
        return TcpTimer.after(LINGER_SECONDS, TimeUnit.SECONDS, closeNow);
    }

    /** Reads and drops input until the peer's end of stream or an error (the deadline closing the channel). */
    static void drain(SocketChannel channel, ByteBuffer scratch) {
        try {
            do {
                scratch.clear();
            } while (channel.read(scratch) >= 0);
        } catch (IOException closedOrReset) {
            // Closed by the deadline, or reset by the peer: either way nothing more will come.
        }
    }

    /** Starts {@code drain} on a virtual thread of its own. */
    static void inBackground(Runnable drain) {
        Thread.ofVirtual().name("tcp-close-drain").start(drain);
    }
}
