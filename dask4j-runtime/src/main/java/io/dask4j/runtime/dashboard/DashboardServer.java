package io.dask4j.runtime.dashboard;

import com.sun.net.httpserver.HttpServer;
import io.dask4j.runtime.scheduler.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.net.URI;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The scheduler's web dashboard: a page (plain HTML, JavaScript and canvas from this jar, no internet
 * needed), the JSON API it polls under {@code /api/v1/}, and {@code /metrics} for Prometheus. Served by
 * the JDK's {@code com.sun.net.httpserver} on two daemon threads. If the server's accepting thread dies (an
 * {@code OutOfMemoryError}), a fresh server replaces it on the same address ({@link HttpDispatcherWatch}).
 *
 * <pre>{@code
 * DashboardServer d = DashboardServer.start(scheduler, DashboardConfig.defaults());
 * System.out.println("dashboard at " + d.url());    // http://127.0.0.1:8787/
 * d.close();
 * }</pre>
 *
 * <p>The HTTP threads never touch scheduler state: they read the immutable views the scheduler's loop
 * publishes ({@link Scheduler#view()}) and the process-wide traffic counters. Thread-safe; {@link
 * #close()} is idempotent.
 */
public final class DashboardServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DashboardServer.class);
    private static final AtomicInteger THREADS = new AtomicInteger();

    private final ExecutorService executor;
    private final URI url;
    private final boolean fellBack;
    private final String bindHost;
    private final int boundPort;
    private final DashboardHandler handler;
    private final AtomicInteger restarts = new AtomicInteger();
    private volatile HttpServer server;
    /** The current server's dispatcher thread (null if it could not be told apart) and the thread watching it. */
    private volatile Thread dispatcher;
    private volatile Thread watcher;
    private volatile boolean closed;

    private DashboardServer(ExecutorService executor, URI url, boolean fellBack, String bindHost, int boundPort,
                            DashboardHandler handler) {
        this.executor = executor;
        this.url = url;
        this.fellBack = fellBack;
        this.bindHost = bindHost;
        this.boundPort = boundPort;
        this.handler = handler;
    }

    /**
     * Serves the dashboard of {@code scheduler} as {@code config} says. If the port is taken, binds a
     * free port instead (check {@link #url()} and {@link #fellBackToFreePort()}).
     *
     * @throws IllegalArgumentException if {@code config} is disabled
     * @throws UncheckedIOException if no port at all can be bound on the host
     */
    public static DashboardServer start(Scheduler scheduler, DashboardConfig config) {
        if (!config.enabled()) {
            throw new IllegalArgumentException("the dashboard is disabled in this configuration");
        }
        HttpServer server;
        boolean fellBack = false;
        try {
            server = bind(config.host(), config.port());
        } catch (BindException taken) {
            if (config.port() == 0) {
                throw new UncheckedIOException("cannot bind the dashboard on " + config.host(), taken);
            }
            fellBack = true;
            try {
                server = bind(config.host(), 0);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot bind the dashboard on " + config.host(), e);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot bind the dashboard on " + config.host() + ":" + config.port(), e);
        }
        ExecutorService executor = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "dask4j-dashboard-" + THREADS.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        InetSocketAddress bound = server.getAddress();
        String host = config.host().contains(":") ? "[" + config.host() + "]" : config.host();
        if (host.equals("0.0.0.0") || host.equals("[::]")) {
            host = "127.0.0.1";
        }
        URI url = URI.create("http://" + host + ":" + bound.getPort() + "/");
        boolean loopback = isLoopback(bound);
        if (!loopback) {
            LOG.warn("the dashboard listens on {}, beyond loopback: anyone who can reach it sees worker addresses, pids "
                    + "and task keys (it has no login); bind 127.0.0.1 and use an SSH tunnel unless this network is trusted",
                    bound);
        }
        HostHeaderCheck hosts = new HostHeaderCheck(config.allowedHosts(), loopback ? List.of() : machineNames());
        DashboardHandler handler = new DashboardHandler(scheduler, url.toString(), hosts);
        DashboardServer board = new DashboardServer(executor, url, fellBack, config.host(), bound.getPort(), handler);
        board.serve(server);
        if (fellBack) {
            // INFO, not WARN: a second cluster on one machine is normal, and the caller prints the URL.
            LOG.info("port {} is taken; the dashboard is at {} instead", config.port(), url);
        } else {
            LOG.info("dashboard at {}", url);
        }
        return board;
    }

    /** Starts {@code s} with this dashboard's handler and watches its dispatcher thread ({@link HttpDispatcherWatch}). */
    private void serve(HttpServer s) {
        s.createContext("/", handler);
        s.setExecutor(executor);
        Thread d = HttpDispatcherWatch.startAndFind(s::start);
        server = s;
        dispatcher = d;
        if (d != null) {
            watcher = HttpDispatcherWatch.watch(d, "the dashboard at " + url, () -> closed, () -> restart(d));
        }
    }

    /**
     * Replaces the server whose dispatcher {@code died} with a fresh one on the same address (the page's URL stays
     * right); does nothing if the dashboard was closed or already replaced that server. A failure to bind is
     * logged: the scheduler runs on without a dashboard.
     */
    synchronized void restart(Thread died) {
        if (closed || died != dispatcher) {
            return;
        }
        server.stop(0);
        try {
            serve(bind(bindHost, boundPort));
            restarts.incrementAndGet();
            LOG.info("the dashboard at {} serves again", url);
        } catch (IOException | RuntimeException e) {
            LOG.error("the dashboard at {} could not be restarted ({}); the scheduler runs on without it", url, e.toString());
        }
    }

    /** How many times the dashboard replaced a server whose dispatcher died. */
    int restarts() {
        return restarts.get();
    }

    /** The current server's dispatcher thread, or null if it could not be told apart. */
    Thread dispatcher() {
        return dispatcher;
    }

    /** The thread watching the current dispatcher, or null. */
    Thread watcher() {
        return watcher;
    }

    private static boolean isLoopback(InetSocketAddress bound) {
        InetAddress a = bound.getAddress();
        return a != null && a.isLoopbackAddress();
    }

    /** This machine's names, which users of a dashboard listening beyond loopback type in their browser. */
    private static List<String> machineNames() {
        List<String> names = new ArrayList<>();
        try {
            InetAddress local = InetAddress.getLocalHost();
            names.add(local.getHostName());
            names.add(local.getCanonicalHostName());
        } catch (IOException e) {
            LOG.debug("cannot learn this machine's name: {}", e.toString());
        }
        return names;
    }

    private static HttpServer bind(String host, int port) throws IOException {
        return HttpServer.create(new InetSocketAddress(host, port), 64);
    }

    /** Where the page is, e.g. {@code http://127.0.0.1:8787/}. */
    public URI url() {
        return url;
    }

    public int port() {
        return server.getAddress().getPort();
    }

    /** True if the asked-for port was taken and a free one was bound instead. */
    public boolean fellBackToFreePort() {
        return fellBack;
    }

    /** Stops serving (open requests get up to 100 ms) and ends the HTTP threads. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        server.stop(0);
        executor.shutdownNow();
    }
}
