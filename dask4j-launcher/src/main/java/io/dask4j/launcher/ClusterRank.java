package io.dask4j.launcher;

import io.dask4j.comm.Address;
import io.dask4j.mpi.MpiRuntime;
import io.dask4j.runtime.client.Client;
import io.dask4j.runtime.scheduler.Scheduler;
import io.dask4j.runtime.scheduler.SchedulerConfig;
import io.dask4j.runtime.worker.Worker;
import io.dask4j.runtime.worker.WorkerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * One rank of an MPI-launched cluster, started: logging to its file, MPI up, its roles running (scheduler,
 * worker, client) and every worker of the job registered. {@link #start} is the common start-up of
 * {@link MpiCluster#initialize} and {@code dask4j mpi}:
 * <ol>
 *   <li>log file from the launcher's rank, MPI, the launcher checked against MPI, the layout (too few
 *       ranks: every rank fails alike, no message exchanged), the header;</li>
 *   <li>collectives while no comm needs progress: host names (allgather), a control communicator, and the
 *       scheduler's {@code OK <run id> <addresses>} or {@code ERROR <why>} (broadcast once it listens);</li>
 *   <li>under {@link MpiProtocol#AUTO} on several hosts, each rank's listening addresses (allgather, once its
 *       worker listens and before it registers), from which {@link PeerRoutes} picks mpi or tcp per peer;</li>
 *   <li>workers start and register, the client connects, then a barrier (through the progress engine):
 *       when it completes, every worker is registered.</li>
 * </ol>
 * Failures of step 1 and 2 are {@link RankExit}s, agreed by every rank; later ones only this rank sees,
 * so they end the whole job ({@link #abort}). Threads: the rank's main thread; accessors from any thread.
 */
final class ClusterRank {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterRank.class);
    private static final int HOST_BYTES = 256;
    private static final int MESSAGE_BYTES = 8192;
    /** A rank's listening addresses in the exchange of {@link MpiProtocol#AUTO} across hosts. */
    private static final int ENDPOINT_BYTES = 1024;
    /** The scheduler's in-process listener is {@code inproc://<prefix><run id>}, for a client on its rank. */
    private static final String IN_PROCESS_PREFIX = "dask4j-scheduler-";
    /** The secret field of the start-up broadcast when the cluster runs without authentication. */
    private static final String NO_SECRET = "-";

    final MpiClusterOptions options;
    final MpiRuntime mpi;
    final ControlChannel control;
    final RankLayout layout;
    final int rank;
    final String runId;
    final List<Address> schedulerAddresses;
    /** The host of each rank, by rank: errors about a rank name its node. */
    final List<String> hosts;
    /** Mpi or tcp per peer ({@link MpiProtocol#AUTO} across hosts), or null: every peer over the protocol's transport. */
    final PeerRoutes routes;
    Scheduler scheduler;
    Worker worker;
    Client client;

    private ClusterRank(MpiClusterOptions options, MpiRuntime mpi, ControlChannel control, RankLayout layout,
                        String runId, List<Address> schedulerAddresses, List<String> hosts, PeerRoutes routes) {
        this.options = options;
        this.mpi = mpi;
        this.control = control;
        this.layout = layout;
        this.rank = mpi.rank();
        this.runId = runId;
        this.schedulerAddresses = schedulerAddresses;
        this.hosts = hosts;
        this.routes = routes;
    }

    /** Starts this rank's roles; throws {@link RankExit} when the job as a whole cannot start. */
    static ClusterRank start(MpiClusterOptions options) {
        LaunchEnvironment env = LaunchEnvironment.detect();
        Path logFile = RankLogging.configure(options.logDirectory(), env.rankOrZero());
        MpiRuntime mpi;
        try {
            mpi = MpiRuntime.start(options.mpi());
        } catch (RuntimeException e) {
            throw new RankExit(1, "MPI did not start: " + e.getMessage(), true, e);
        }
        int rank = mpi.rank();
        if (rank != env.rankOrZero() && options.logDirectory() != null) {
            logFile = RankLogging.configure(options.logDirectory(), rank);
        }
        String library = mpi.mpi().library().name();
        String warning;
        try {
            warning = env.check(rank, mpi.size(), library);
        } catch (LauncherException e) {
            throw new RankExit(1, e.getMessage(), true, e);
        }
        RankLayout layout;
        try {
            layout = options.layout(mpi.size());
        } catch (LayoutException e) {
            RankLogging.header(header(options, mpi, "none (too few ranks)", env, logFile));
            throw new RankExit(2, e.getMessage(), rank == 0, e);
        }
        String role = layout.label(rank) + (layout.roles(rank).contains(Role.WORKER) ? " (" + options.workerNamePrefix() + "-" + rank + ")" : "");
        RankLogging.header(header(options, mpi, role, env, logFile));
        if (warning != null) {
            LOG.warn(warning);
        }
        ControlChannel control = ControlChannel.open(mpi);
        List<String> hosts = control.allgather(hostName(), HOST_BYTES);
        String tcpHost = tcpHost(options, hosts);
        RankListeners listeners = RankListeners.of(options, hosts);
        boolean perPeer = listeners.perPeer();
        if (perPeer || options.protocol() == MpiProtocol.TCP) {
            // Comms reach the ranks of other hosts over tcp: only this host's ranks send over MPI, and they ring.
            mpi.engine().expectOnlyNodeSenders();
        }
        LOG.info("ranks per host: {}; TCP listeners use {}{}", countHosts(hosts), tcpHost, options.protocol() != MpiProtocol.AUTO ? ""
                : perPeer ? "; protocol auto: mpi to the ranks of this host, tcp to the others"
                : "; protocol auto: every rank on this host, mpi to all");

        Scheduler[] started = new Scheduler[1];
        String[] agreed = agreeOnScheduler(options, listeners, mpi, control, layout, tcpHost, started).split(" ");
        if (agreed[0].equals("ERROR")) {
            String why = String.join(" ", Arrays.asList(agreed).subList(1, agreed.length));
            int source = layout.hasScheduler() ? layout.schedulerRank() : 0;
            if (started[0] != null) {
                started[0].close();
            }
            throw new RankExit(1, "the cluster did not start: " + why, rank == source, null);
        }
        List<Address> addresses = new ArrayList<>();
        for (int i = 3; i < agreed.length; i++) {
            addresses.add(Address.parse(agreed[i]));
        }
        MpiClusterOptions withSecret = agreed[2].equals(NO_SECRET) ? options
                : options.withComm(options.comm().withSecret(Base64.getUrlDecoder().decode(agreed[2])));
        PeerRoutes routes = null;
        if (perPeer) {
            routes = new PeerRoutes(rank, hosts);
            if (layout.hasScheduler()) {
                routes.learn(layout.schedulerRank(), addresses);
            }
            withSecret = withSecret.withComm(withSecret.comm().withRoutes(routes));
        }
        ClusterRank self = new ClusterRank(withSecret, mpi, control, layout, agreed[1], List.copyOf(addresses),
                List.copyOf(hosts), routes);
        self.scheduler = started[0];
        LOG.info("run {}: scheduler at {}", self.runId, self.schedulerAddresses);
        self.startRoles(listeners, tcpHost);
        return self;
    }

    /** The scheduler's address for comms inside the job (mpi:// under the mpi protocol). */
    Address schedulerAddress() {
        if (!layout.hasScheduler()) {
            return schedulerAddresses.stream().filter(a -> RankListeners.isSocket(a.scheme())).findFirst().orElseThrow();
        }
        return schedulerAddresses.getFirst();
    }

    /** The scheduler's in-process listener, for a client on the scheduler's rank. */
    private static Address inProcessAddress(Scheduler scheduler) {
        return scheduler.addresses().stream().filter(a -> a.scheme().equals("inproc")).findFirst()
                .orElseThrow(() -> new IllegalStateException("the scheduler of this rank has no in-process listener"));
    }

    /** The worker name of {@code r}. */
    String workerName(int r) {
        return options.workerNamePrefix() + "-" + r;
    }

    /** {@code "rank R on host H"}, for messages about rank {@code r}. */
    String placed(int r) {
        return "rank " + r + " on host " + hosts.get(r);
    }

    /** {@code "worker-3 (rank 3 on host H)"} for the worker named {@code name}, or the name if no rank has it. */
    String describeWorker(String name) {
        for (int r : layout.workerRanks()) {
            if (workerName(r).equals(name)) {
                return name + " (" + placed(r) + ")";
            }
        }
        return name;
    }

    boolean isScheduler() {
        return layout.roles(rank).contains(Role.SCHEDULER);
    }

    boolean isClient() {
        return layout.roles(rank).contains(Role.CLIENT);
    }

    /** Logs {@code message} as an error (the console shows it) and ends the whole job with MPI_Abort. */
    void abort(String message, Throwable cause) {
        JobAbort.abort(mpi, rank, message, cause);
    }

    private void startRoles(RankListeners listeners, String tcpHost) {
        try {
            boolean hasWorker = layout.roles(rank).contains(Role.WORKER);
            if (routes != null && !hasWorker) {
                exchangeEndpoints(List.of());
            }
            if (hasWorker) {
                WorkerConfig config = workerConfig(listeners.worker(layout, rank, tcpHost));
                worker = Worker.start(routes == null ? config : config.withOnListening(this::exchangeEndpoints));
                LOG.info("worker {} ({}) registered", worker.id(), workerName(rank));
            }
            if (isClient()) {
                Address to = scheduler != null ? inProcessAddress(scheduler) : schedulerAddress();
                client = Client.connect(to, options.comm(), options.allowedClasses());
                LOG.info("client {} connected to {}", client.id(), to);
            }
        } catch (RuntimeException e) {
            abort("rank " + rank + " could not start its " + layout.label(rank) + ": " + e.getMessage(), e);
        }
        try {
            mpi.barrier(options.startTimeout());
        } catch (RuntimeException e) {
            abort("rank " + rank + ": the job did not finish starting within " + options.startTimeout() + ": "
                    + e.getMessage(), e);
        }
        LOG.info("all {} workers registered; cluster running", layout.workerRanks().size());
    }

    /**
     * Tells every rank where this rank's worker listens ({@code mine}; empty on a rank without one) and learns theirs
     * into {@link #routes}, then logs the choice once; collective, on every rank before any comm needs progress.
     */
    private void exchangeEndpoints(List<Address> mine) {
        String text = String.join(" ", mine.stream().map(Address::toString).toList());
        List<String> all = control.allgather(text, ENDPOINT_BYTES);
        for (int r = 0; r < all.size(); r++) {
            if (r != rank && !all.get(r).isBlank()) {
                routes.learn(r, Arrays.stream(all.get(r).split(" ")).map(Address::parse).toList());
            }
        }
        LOG.info("peer transports of rank {} (host {}, protocol auto): {}", rank, hosts.get(rank), routes.describe());
    }

    private WorkerConfig workerConfig(List<Address> listen) {
        String name = workerName(rank);
        return WorkerConfig.connectingTo(schedulerAddress()).withListenAddresses(listen).withThreads(options.threads())
                .withMemoryLimit(options.memoryLimit()).withLocalDirectory(options.localDirectory()).withName(name)
                .withOptions(options.comm().withIdentity(name)).withAllowedClasses(options.allowedClasses());
    }

    /**
     * Returns the agreed {@code OK <run id> <secret> <addresses...>} or {@code ERROR <why>}, the same on every rank. The
     * secret (base64 of its bytes, or {@value #NO_SECRET}) travels over MPI, which only the job's ranks can reach.
     */
    private static String agreeOnScheduler(MpiClusterOptions options, RankListeners listeners, MpiRuntime mpi, ControlChannel control,
                                           RankLayout layout, String tcpHost, Scheduler[] started) {
        int root = layout.hasScheduler() ? layout.schedulerRank() : 0;
        String message = null;
        if (mpi.rank() == root) {
            try {
                message = layout.hasScheduler() ? startScheduler(options, listeners, mpi, layout, tcpHost, started) : readSchedulerFile(options);
            } catch (RuntimeException e) {
                LOG.error("the scheduler did not start", e);
                message = "ERROR " + e.getMessage();
            }
            if (message.length() >= MESSAGE_BYTES) {
                message = message.substring(0, MESSAGE_BYTES - 1);
            }
        }
        return control.broadcast(message, root, MESSAGE_BYTES);
    }

    private static String startScheduler(MpiClusterOptions options, RankListeners listeners, MpiRuntime mpi, RankLayout layout,
                                         String tcpHost, Scheduler[] started) {
        String runId = UUID.randomUUID().toString();
        Path file = options.schedulerFile();
        if (file != null && SchedulerFiles.deleteStale(file)) {
            LOG.info("removed the scheduler file {} left by an earlier run", file);
        }
        List<Address> listen = listeners.scheduler(layout.schedulerRank(), tcpHost, options.schedulerPort());
        if (layout.clientBesideScheduler()) {
            // The client of this process connects in-process: no serialization of the stream, no MPI engine or
            // socket between the two, and mpi://<rank> cannot connect to its own rank anyway.
            listen.add(Address.inproc(IN_PROCESS_PREFIX + runId));
        }
        // One secret per job, whatever this rank listens on: ranks may listen on tcp too (a worker sharing this rank, or
        // every worker under --protocol tcp), and they all get it with the start-up broadcast.
        Scheduler scheduler = Scheduler.start(SchedulerConfig.listeningOn(listen.toArray(Address[]::new))
                .withOptions(options.comm().withGeneratedSecret().withIdentity("scheduler")));
        started[0] = scheduler;
        List<Address> addresses = scheduler.addresses().stream().filter(a -> !a.scheme().equals("inproc")).toList();
        if (file != null) {
            List<Address> outsideFirst = new ArrayList<>(addresses.stream().filter(a -> RankListeners.isSocket(a.scheme())).toList());
            addresses.stream().filter(a -> !RankListeners.isSocket(a.scheme())).forEach(outsideFirst::add);
            SchedulerFiles.write(file, outsideFirst, runId, mpi.size(), scheduler.config().options().secretText());
            LOG.info("wrote the scheduler file {} (run {})", file.toAbsolutePath(), runId);
        }
        return "OK " + runId + " " + secretField(scheduler.config().options().secret()) + " "
                + String.join(" ", addresses.stream().map(Address::toString).toList());
    }

    private static String readSchedulerFile(MpiClusterOptions options) {
        if (options.schedulerFile() == null) {
            throw new IllegalArgumentException("without a scheduler rank, give the running scheduler's --scheduler-file");
        }
        SchedulerFiles.Content content = SchedulerFiles.read(options.schedulerFile(), options.startTimeout());
        String runId = content.runId().isEmpty() ? "external" : content.runId();
        byte[] secret = content.secret() != null ? content.secret().getBytes(StandardCharsets.UTF_8) : options.comm().secret();
        return "OK " + runId + " " + secretField(secret) + " " + content.socketAddress();
    }

    private static String secretField(byte[] secret) {
        return secret == null ? NO_SECRET : Base64.getUrlEncoder().encodeToString(secret);
    }

    private static List<String> header(MpiClusterOptions options, MpiRuntime mpi, String role, LaunchEnvironment env,
                                       Path logFile) {
        int rank = mpi.rank();
        String version = mpi.mpi().libraryVersion().lines().findFirst().orElse("").strip();
        String memory = options.memoryLimit() == 0 ? "none" : options.memoryLimit() + " bytes";
        return List.of(
                "dask4j rank " + rank + " of " + mpi.size() + ", role " + role,
                "host " + hostName() + ", pid " + ProcessHandle.current().pid(),
                "Java " + Runtime.version() + " (" + System.getProperty("java.vm.vendor") + ", " + System.getProperty("java.vm.name") + ")",
                "MPI library " + mpi.mpi().library().name() + ", ABI " + mpi.mpi().abi().family() + ", thread level "
                        + mpi.threadLevel() + ": " + version,
                "launcher " + env.launcher() + (env.source().isEmpty() ? "" : " (" + env.source() + ")"),
                "protocol " + options.protocol().scheme() + ", threads per worker " + options.threads() + ", memory limit "
                        + memory + ", log " + (logFile == null ? "console" : logFile));
    }

    static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return System.getenv().getOrDefault("HOSTNAME", "localhost");
        }
    }

    private static String tcpHost(MpiClusterOptions options, List<String> hosts) {
        if (options.host() != null) {
            return options.host();
        }
        if (new HashSet<>(hosts).size() <= 1) {
            return "127.0.0.1";
        }
        return io.dask4j.comm.HostAddresses.forPeers();
    }

    private static String countHosts(List<String> hosts) {
        Set<String> distinct = new java.util.TreeSet<>(hosts);
        List<String> parts = new ArrayList<>();
        for (String h : distinct) {
            parts.add(h + "=" + hosts.stream().filter(h::equals).count());
        }
        return String.join(", ", parts);
    }
}
