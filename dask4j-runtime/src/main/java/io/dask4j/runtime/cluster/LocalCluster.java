package io.dask4j.runtime.cluster;

import io.dask4j.comm.JvmFlags;
import io.dask4j.comm.Address;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.SelfSignedTls;
import io.dask4j.comm.TlsEnvironment;
import io.dask4j.comm.TlsOptions;
import io.dask4j.runtime.client.Client;
import io.dask4j.runtime.dashboard.DashboardConfig;
import io.dask4j.runtime.dashboard.DashboardServer;
import io.dask4j.runtime.scheduler.Scheduler;
import io.dask4j.runtime.scheduler.SchedulerConfig;
import io.dask4j.runtime.worker.Worker;
import io.dask4j.runtime.worker.WorkerConfig;
import io.dask4j.comm.serialize.ClassAllowList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * A scheduler and N workers x T threads on this machine, started and closed together: either all in
 * this JVM over {@code inproc://} comms (or {@code tcp://}, {@code tls://} ones, see {@link Builder#transport}), or
 * the workers as separate JVM processes over {@code tcp://} or {@code tls://} (spawned as {@code java --class-path
 * <this class path> WorkerMain ...}).
 *
 * <p>Over {@code tls://} without TLS options of the user's ({@link CommOptions#tls()}), the cluster makes a
 * self-signed certificate for this host ({@link SelfSignedTls}, in a directory only its owner reads, deleted on
 * {@link #close()}) and uses it with mutual TLS: every endpoint presents it and trusts only it. The secret handshake
 * runs inside TLS as usual.
 *
 * <pre>{@code
 * try (LocalCluster cluster = LocalCluster.builder().workers(2).threadsPerWorker(1).processes(true).start();
 *      Client client = cluster.client()) {
 *     ...
 * }
 * }</pre>
 *
 * <p>No dashboard unless asked for ({@link Builder#dashboard(boolean)}): tests and benchmarks start many
 * local clusters, often in parallel JVMs, and none of them should take (or race for) port 8787. With
 * {@code dashboard(true)} it serves at 127.0.0.1:8787, or on a free port if that is taken (see {@link
 * #dashboardUrl()}), as Dask's LocalCluster does.
 *
 * <p>Thread-safe for its accessors; {@link #close()} is idempotent.
 */
public final class LocalCluster implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LocalCluster.class);

    private final Scheduler scheduler;
    private final DashboardServer dashboard;
    private final List<Worker> workers = new ArrayList<>();
    private final List<Process> processes = new ArrayList<>();
    private final List<Path> logs = new ArrayList<>();
    private final Builder settings;
    /** The self-signed TLS material this cluster made, or null. */
    private final Path tlsDirectory;
    private volatile boolean closed;

    /** Settings of a local cluster; {@link #start()} builds it. */
    public static final class Builder {
        private int workers = 2;
        private int threads = 1;
        private boolean processes;
        private String transport;
        private long memoryLimit;
        private Path localDirectory;
        private CommOptions options = CommOptions.defaults();
        private ClassAllowList allowedClasses = ClassAllowList.defaults();
        private int allowedFailures = 3;
        private Duration heartbeatTimeout = Duration.ofSeconds(30);
        private long unusedFunctionBytes = SchedulerConfig.DEFAULT_UNUSED_FUNCTION_BYTES;
        private DashboardConfig dashboard = DashboardConfig.disabled();
        // Full JIT by default: worker processes run user kernels, so C2 matters more than start-up time.
        private List<String> jvmArgs = List.of("-XX:+UseSerialGC", JvmFlags.OPEN_LAMBDAS);

        public Builder workers(int n) {
            this.workers = n;
            return this;
        }

        public Builder threadsPerWorker(int n) {
            this.threads = n;
            return this;
        }

        /**
         * Workers as separate JVM processes (true) over tcp, or over tls with {@link #transport} {@code "tls"}; or
         * threads of this JVM (false, default).
         */
        public Builder processes(boolean p) {
            this.processes = p;
            return this;
        }

        /**
         * {@code "inproc"} (default for in-JVM), {@code "tcp"} (default for processes) or {@code "tls"} (tcp with TLS,
         * in-JVM or processes: the builder's {@link #options} TLS settings, or a self-signed certificate made for the
         * cluster).
         */
        public Builder transport(String scheme) {
            this.transport = scheme;
            return this;
        }

        public Builder memoryLimit(long bytes) {
            this.memoryLimit = bytes;
            return this;
        }

        public Builder localDirectory(Path dir) {
            this.localDirectory = dir;
            return this;
        }

        public Builder options(CommOptions o) {
            this.options = o;
            return this;
        }

        /**
         * The classes workers and this cluster's clients build from frames (default: {@link
         * ClassAllowList#defaults()}, which allows the main class's package); worker processes get it on their
         * command line.
         */
        public Builder allowedClasses(ClassAllowList allowed) {
            this.allowedClasses = java.util.Objects.requireNonNull(allowed, "allowed");
            return this;
        }

        public Builder allowedFailures(int n) {
            this.allowedFailures = n;
            return this;
        }

        public Builder heartbeatTimeout(Duration d) {
            this.heartbeatTimeout = d;
            return this;
        }

        /** See {@link SchedulerConfig#unusedFunctionBytes()}; 0 forgets every function as soon as no task runs it. */
        public Builder unusedFunctionBytes(long bytes) {
            this.unusedFunctionBytes = bytes;
            return this;
        }

        /** Serve the scheduler's dashboard at 127.0.0.1:8787 (a free port if taken), or not (default). */
        public Builder dashboard(boolean on) {
            this.dashboard = on ? DashboardConfig.defaults() : DashboardConfig.disabled();
            return this;
        }

        /** Serve the dashboard at {@code host:port}, {@code :port} or {@code port} (0: a free port). */
        public Builder dashboardAddress(String address) {
            this.dashboard = DashboardConfig.parse(address);
            return this;
        }

        public Builder dashboard(DashboardConfig config) {
            this.dashboard = config;
            return this;
        }

        /** JVM options of worker processes (default: {@code -XX:+UseSerialGC} with the full JIT, plus {@link JvmFlags#OPEN_LAMBDAS}). */
        public Builder jvmArgs(List<String> args) {
            this.jvmArgs = List.copyOf(args);
            return this;
        }

        public LocalCluster start() {
            return new LocalCluster(this);
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    private LocalCluster(Builder b) {
        this.settings = b;
        boolean tls = "tls".equals(b.transport);
        String scheme = tls ? "tls" : b.processes ? "tcp" : b.transport == null ? "inproc" : b.transport;
        Address listen = switch (scheme) {
            case "tcp", "tls" -> Address.hostPort(scheme, "127.0.0.1", 0);
            default -> Address.inproc("scheduler-" + UUID.randomUUID());
        };
        CommOptions given = b.options;
        Path madeTls = null;
        if (tls && given.tls() == null) {
            madeTls = tlsDirectory();
            given = given.withTls(TlsOptions.of(SelfSignedTls.create(madeTls.resolve("certificate")).keyStores())
                    .withMutualAuth(true));
        }
        this.tlsDirectory = madeTls;
        DashboardServer board = null;
        Scheduler started = null;
        try {
            started = Scheduler.start(SchedulerConfig.listeningOn(listen)
                    .withOptions(given.withIdentity("scheduler"))
                    .withAllowedFailures(b.allowedFailures).withHeartbeatTimeout(b.heartbeatTimeout)
                    .withUnusedFunctionBytes(b.unusedFunctionBytes));
            board = b.dashboard.enabled() ? DashboardServer.start(started, b.dashboard) : null;
        } catch (RuntimeException e) {
            if (started != null) {
                started.close();
            }
            if (madeTls != null) {
                deleteTree(madeTls);
            }
            throw e;
        }
        this.scheduler = started;
        this.dashboard = board;
        try {
            for (int i = 0; i < b.workers; i++) {
                if (b.processes) {
                    processes.add(spawn(i));
                } else {
                    workers.add(Worker.start(WorkerConfig.connectingTo(scheduler.address()).withThreads(b.threads)
                            .withMemoryLimit(b.memoryLimit).withLocalDirectory(b.localDirectory).withName("worker-" + i)
                            .withOptions(options().withIdentity("worker-" + i)).withAllowedClasses(b.allowedClasses)));
                }
            }
            awaitWorkers(b.workers, Duration.ofSeconds(60));
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    private Process spawn(int i) {
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        cmd.addAll(settings.jvmArgs);
        cmd.addAll(List.of("--class-path", System.getProperty("java.class.path"), WorkerMain.class.getName(),
                scheduler.address().toString(), "--nthreads", Integer.toString(settings.threads), "--name", "worker-" + i,
                "--memory-limit", Long.toString(settings.memoryLimit)));
        if (settings.localDirectory != null) {
            cmd.addAll(List.of("--local-directory", settings.localDirectory.toString()));
        }
        if (options().insecureNoAuth() && !options().hasSecret()) {
            cmd.add(WorkerMain.INSECURE_NO_AUTH);
        }
        String allowed = settings.allowedClasses.toSpec();
        if (!allowed.isEmpty()) {
            cmd.addAll(List.of("--allow-classes", allowed));
        }
        try {
            Path log = Files.createTempFile("dask4j-worker-" + i + "-", ".log");
            logs.add(log);
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
            // The cluster's secret (given, or generated by the scheduler) in the environment, not on the command line,
            // where every user of the host could read it.
            CommOptions options = options();
            if (options.hasSecret()) {
                pb.environment().put(CommOptions.SECRET_ENV, options.secretText());
            } else {
                pb.environment().remove(CommOptions.SECRET_ENV);
            }
            // TLS settings (key store passwords included) the same way.
            TlsEnvironment.ALL.forEach(setting -> pb.environment().remove(setting.name()));
            if (options.tls() != null) {
                pb.environment().putAll(TlsEnvironment.variables(options.tls()));
            }
            return pb.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start a worker process", e);
        }
    }

    private static Path tlsDirectory() {
        try {
            return Files.createTempDirectory("dask4j-cluster-tls-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make a directory for the cluster's TLS certificate", e);
        }
    }

    private void awaitWorkers(int n, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (scheduler.snapshot().workers().size() < n) {
            for (int i = 0; i < processes.size(); i++) {
                if (!processes.get(i).isAlive()) {
                    throw new IllegalStateException("worker process " + i + " exited with " + processes.get(i).exitValue()
                            + "; its log: " + tail(logs.get(i)));
                }
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new IllegalStateException("only " + scheduler.snapshot().workers().size() + " of " + n
                        + " workers registered within " + timeout);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while starting workers");
            }
        }
    }

    private static String tail(Path log) {
        try {
            String s = Files.readString(log);
            return s.length() > 4000 ? s.substring(s.length() - 4000) : s;
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    public Address schedulerAddress() {
        return scheduler.address();
    }

    public Scheduler scheduler() {
        return scheduler;
    }

    /** The dashboard's address, if this cluster serves one. */
    public Optional<URI> dashboardUrl() {
        return Optional.ofNullable(dashboard).map(DashboardServer::url);
    }

    /** The in-process workers (empty when workers are processes). */
    public List<Worker> workers() {
        return List.copyOf(workers);
    }

    /** The worker processes (empty for an in-process cluster). */
    public List<Process> workerProcesses() {
        return List.copyOf(processes);
    }

    /** A new client of this cluster, with the cluster's comm options and allowed classes. */
    public Client client() {
        return Client.connect(scheduler.address(), options(), settings.allowedClasses);
    }

    /**
     * The cluster's comm options: those given to the builder, with the secret the scheduler generated when none was
     * given and the workers are processes over tcp.
     */
    public CommOptions options() {
        return scheduler.config().options();
    }

    /**
     * Starts an in-process cluster with one single-threaded worker per core and returns a client of it; closing
     * the client stops the cluster.
     */
    public static Client startClient() {
        return startClient(Runtime.getRuntime().availableProcessors(), 1);
    }

    /** Starts an in-process cluster of {@code workers} x {@code threads} (inproc comms); closing the client stops it. */
    public static Client startClient(int workers, int threads) {
        LocalCluster cluster = builder().workers(workers).threadsPerWorker(threads).start();
        try {
            return cluster.client().closing(cluster);
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /** Kills worker process {@code i} at once (SIGKILL), as a crash would. */
    public void killWorkerProcess(int i) {
        processes.get(i).destroyForcibly();
    }

    /** Closes workers and scheduler; worker processes get 10 s to exit before they are killed. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (dashboard != null) {
            dashboard.close();
        }
        for (Worker w : workers) {
            w.close();
        }
        scheduler.close();
        for (Process p : processes) {
            try {
                if (!p.waitFor(10, TimeUnit.SECONDS)) {
                    LOG.warn("worker process {} did not exit; killing it", p.pid());
                    p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                p.destroyForcibly();
            }
        }
        for (Path log : logs) {
            try {
                Files.deleteIfExists(log);
            } catch (IOException ignored) {
                // a leftover log in the temp directory is harmless
            }
        }
        if (tlsDirectory != null) {
            deleteTree(tlsDirectory);
        }
    }

    private static void deleteTree(Path root) {
        try (var paths = Files.walk(root)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    LOG.warn("cannot delete {}: {}", p, e.toString());
                }
            });
        } catch (IOException e) {
            LOG.warn("cannot delete the cluster's TLS certificate in {}: {}", root, e.toString());
        }
    }
}
