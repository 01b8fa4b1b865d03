package io.dask4j.comm.tcp;

import jdk.net.ExtendedSocketOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.time.Duration;

/**
 * TCP keepalive sized from a dead-peer timeout, the way Dask's {@code set_tcp_timeout} sizes it: ten probes,
 * spaced so that the silence before the first one plus the probes add up to the timeout. A comm waiting for
 * data from a peer that vanished without closing then fails after about that long instead of the kernel's
 * two hours. It does not bound a send to such a peer: unacknowledged data stops keepalive, and the kernel
 * retransmits for about 15 minutes; {@link TcpUserTimeout} bounds that, and {@link WriteStallChecker} the sends
 * that block. Stateless; any thread.
 */
final class TcpKeepAlive {
    private static final Logger LOG = LoggerFactory.getLogger(TcpKeepAlive.class);
    static final int PROBES = 10;
    /** Linux refuses idle times and intervals above this ({@code MAX_TCP_KEEPIDLE}, {@code MAX_TCP_KEEPINTVL}). */
    static final int MAX_SECONDS = 32767;

    /** Seconds of silence before the first probe, seconds between probes, and the number of probes. */
    record Settings(int idleSeconds, int intervalSeconds, int probes) {
        int totalSeconds() {
            return idleSeconds + intervalSeconds * probes;
        }
    }

    private TcpKeepAlive() {
    }

    /**
     * The probes for a timeout of {@code timeoutSeconds} (at least {@code PROBES + 1}), as Dask computes them;
     * past about 100 hours the kernel's limits cap them, and the comm fails sooner than asked.
     */
    static Settings settingsFor(long timeoutSeconds) {
        if (timeoutSeconds < PROBES + 1) {
            throw new IllegalArgumentException("a dead-peer timeout needs at least " + (PROBES + 1) + " s: " + timeoutSeconds);
        }
        int timeout = (int) Math.min(timeoutSeconds, Integer.MAX_VALUE / 2);
        int idle = Math.max(2, timeout / 4);
        int interval = Math.max(1, (timeout - idle) / PROBES);
        idle = timeout - interval * PROBES;
        return new Settings(Math.min(idle, MAX_SECONDS), Math.min(interval, MAX_SECONDS), PROBES);
    }

    /** Turns keepalive on for {@code channel}, with probes sized from {@code deadPeerTimeout} unless it is zero. */
    static void apply(SocketChannel channel, Duration deadPeerTimeout) throws IOException {
        channel.setOption(java.net.StandardSocketOptions.SO_KEEPALIVE, true);
        if (deadPeerTimeout.isZero()) {
            return;
        }
        Settings s = settingsFor(deadPeerTimeout.toSeconds());
        try {
            channel.setOption(ExtendedSocketOptions.TCP_KEEPIDLE, s.idleSeconds());
            channel.setOption(ExtendedSocketOptions.TCP_KEEPINTERVAL, s.intervalSeconds());
            channel.setOption(ExtendedSocketOptions.TCP_KEEPCOUNT, s.probes());
        } catch (UnsupportedOperationException | java.net.SocketException e) {
            // A platform without per-socket keepalive settings (or with other limits) keeps the system's: slower to
            // notice a dead peer, still correct. Losing the comm over it would be worse.
            LOG.debug("keepalive settings {} refused: {}", s, e.toString());
        }
    }
}
