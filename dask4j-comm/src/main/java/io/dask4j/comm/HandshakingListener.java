package io.dask4j.comm;

import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listener {@link Comms#listen} returns: wraps a backend's raw listener, runs the server side of the
 * {@link Handshake} for each accepted comm on its own virtual thread, and hands only handshaken comms to
 * the user's handler (on that same virtual thread). {@link #stop()} aborts comms still handshaking, so
 * their clients fail fast instead of waiting for a timeout. Thread-safe.
 */
final class HandshakingListener implements Listener {

    private static final Logger LOG = LoggerFactory.getLogger(HandshakingListener.class);
    /** Rejected handshakes of every listener of the process: ten warnings per ten seconds at most. */
    private static final RateLimitedLog REJECTED = new RateLimitedLog(LOG, 10, Duration.ofSeconds(10));

    private static final RateLimitedLog REFUSED = new RateLimitedLog(LOG, 10, Duration.ofSeconds(10));

    private final Listener raw;
    private final CommOptions options;
    private final Consumer<Comm> handler;
    private final Consumer<CommException> onHandshakeFailure;
    /** In accept order, oldest first; guarded by itself. */
    private final Set<Comm> handshaking = new LinkedHashSet<>();
    private volatile boolean stopped;

    HandshakingListener(Backend backend, Address address, CommOptions options, Consumer<Comm> handler,
                        Consumer<CommException> onHandshakeFailure) {
        this.options = options;
        this.handler = handler;
        this.onHandshakeFailure = onHandshakeFailure;
        this.raw = backend.listener(address, options, this::onAccept);
    }

    @Override
    public void start() {
        raw.start();
    }

    @Override
    public void stop() {
        stopped = true;
        raw.stop();
        List<Comm> pending;
        synchronized (handshaking) {
            pending = List.copyOf(handshaking);
        }
        for (Comm comm : pending) {
            comm.abort();
        }
    }

    @Override
    public Address listenAddress() {
        return raw.listenAddress();
    }

    @Override
    public Address contactAddress() {
        return raw.contactAddress();
    }

    private void onAccept(Comm comm) {
        if (stopped) {
            comm.abort();
            return;
        }
        int cap = options.limits().maxHandshaking();
        Comm evicted = null;
        synchronized (handshaking) {
            if (handshaking.size() >= cap) {
                // Past the cap, the oldest handshaking comm makes room: a flood of connections that never speak costs
                // neither memory nor threads beyond the cap, and cannot lock out a newcomer (a legitimate client
                // handshakes in milliseconds). Each slot holds a virtual thread and a comm's buffers (tcp: 64 KiB,
                // plus at most LimitedComm.HANDSHAKE_MAX_MESSAGE_BYTES).
                Iterator<Comm> oldest = handshaking.iterator();
                evicted = oldest.next();
                oldest.remove();
            }
            handshaking.add(comm);
        }
        if (evicted != null) {
            REFUSED.warn("dropped a connection from {} on {} before its handshake ended: {} connections were "
                    + "handshaking (the cap)", evicted.peerAddress(), listenAddress(), cap);
            evicted.abort();
        }
        Thread.ofVirtual().name("dask4j-comm-" + comm.peerAddress()).start(() -> serve(comm));
    }

    private void serve(Comm comm) {
        Comm ready;
        try {
            if (stopped) {
                throw new CommClosedException("listener " + listenAddress() + " stopped");
            }
            ready = Handshake.server(comm, options);
        } catch (CommException e) {
            logRejected(comm, e);
            report(e);
            return;
        } finally {
            synchronized (handshaking) {
                handshaking.remove(comm);
            }
        }
        if (stopped) {
            ready.abort();
            return;
        }
        try {
            handler.accept(ready);
        } catch (RuntimeException e) {
            LOG.warn("handler of {} failed on comm from {}; aborting it", listenAddress(), ready.peerAddress(), e);
            ready.abort();
        } catch (Error e) {
            ready.abort();
            throw e;
        }
    }

    /**
     * A wrong secret, a broken protocol or a peer that never finished are what a probe looks like: WARN, rate-limited,
     * with the peer's address. A peer that merely hung up (a port check, a listener stopping) stays at DEBUG.
     */
    private void logRejected(Comm comm, CommException e) {
        if (e instanceof AuthenticationException || e instanceof ProtocolException || e instanceof HandshakeTimeoutException
                || e instanceof TlsException) {
            REJECTED.warn("rejected a connection from {} on {}: {}", comm.peerAddress(), listenAddress(), e.getMessage());
        } else {
            LOG.debug("handshake with {} on {} failed: {}", comm.peerAddress(), listenAddress(), e.toString());
        }
    }

    private void report(CommException e) {
        try {
            onHandshakeFailure.accept(e);
        } catch (RuntimeException ignored) {
            // A failing observer must not take the listener down.
        }
    }

    @Override
    public String toString() {
        return "Listener[" + raw + "]";
    }
}
