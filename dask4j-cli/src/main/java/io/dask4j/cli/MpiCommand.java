package io.dask4j.cli;

import io.dask4j.comm.serialize.ClassAllowList;
import io.dask4j.jobs.OptionChecks;
import io.dask4j.launcher.MpiCluster;
import io.dask4j.launcher.MpiClusterOptions;
import io.dask4j.launcher.MpiProtocol;
import io.dask4j.launcher.OpenMpiArguments;
import io.dask4j.launcher.RankLayout;
import io.dask4j.runtime.cluster.MemorySize;
import io.dask4j.runtime.dashboard.DashboardConfig;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code mpirun -np N ./dask4j mpi [options]}: a dask4j cluster over the ranks of an MPI job, for clients
 * outside it. Rank 0 runs the scheduler, listening on mpi://0 for the workers and on TCP for clients,
 * and writes the scheduler file once it listens (replacing a stale one); every other rank runs a worker
 * that talks MPI to the scheduler and its peers (and listens on TCP too, for outside clients). With
 * {@code --no-scheduler} every rank is a worker joining the running scheduler named by the file (over
 * TCP). With TLS key material ({@code --tls-*} as for {@code scheduler}, or {@code DASK4J_TLS_*}) those TCP
 * listeners are {@code tls://}. The job runs until mpirun gets SIGTERM or Ctrl-C; each rank logs to {@code logs/rank-<r>.log}.
 * The scheduler rank serves the web dashboard (127.0.0.1:8787 by default, a free port if taken; {@code
 * --dashboard-address}, {@code --no-dashboard}) and prints its addresses, the dashboard URL and the logs'
 * location on standard error.
 *
 * <p>The work is done by {@link MpiCluster#serve}; this class only parses the command line. Runnable on
 * its own: {@code java --class-path CP io.dask4j.cli.MpiCommand ...}.
 */
@Command(name = "mpi", mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
        description = {"Runs a dask4j cluster under mpirun: rank 0 the scheduler, every other rank a worker.",
                "Example: mpirun -np 4 ./dask4j mpi --scheduler-file scheduler.json"})
public final class MpiCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--scheduler-file", paramLabel = "F",
            description = "Write the scheduler's addresses here once it listens (read it with --no-scheduler).")
    Path schedulerFile;

    @Option(names = "--no-scheduler", description = "Add workers to the running scheduler named by --scheduler-file.")
    boolean noScheduler;

    @Option(names = "--protocol", paramLabel = "auto|mpi|tcp", defaultValue = "auto",
            description = "How scheduler and workers talk: auto (default: mpi between the ranks of a host, tcp between"
                    + " hosts), mpi, or tcp (MPI only to start up).")
    String protocol;

    @Option(names = "--nthreads", paramLabel = "T", defaultValue = "1", description = "Task threads per worker (default 1).")
    int nthreads;

    @Option(names = "--memory-limit", paramLabel = "M", defaultValue = "0",
            description = "Memory per worker before spilling, e.g. 4GiB; 0 for no limit (default).")
    String memoryLimit;

    @Option(names = "--local-directory", paramLabel = "D", description = "Where workers spill to disk (default: temp dir).")
    Path localDirectory;

    @Option(names = "--name", paramLabel = "PREFIX", defaultValue = "worker",
            description = "Workers are named PREFIX-<rank> (default worker).")
    String name;

    @Option(names = "--host", paramLabel = "H",
            description = "Host for TCP listeners (default: 127.0.0.1 when all ranks share one host, else this host's address).")
    String host;

    @Option(names = "--scheduler-port", paramLabel = "P", defaultValue = "0",
            description = "The scheduler's TCP port for outside clients (default 0: a free port).")
    int schedulerPort;

    @Option(names = "--log-dir", paramLabel = "D", description = "Where each rank writes rank-<r>.log (default logs).")
    Path logDirectory;

    @Option(names = "--dashboard-address", paramLabel = "HOST:PORT", defaultValue = "127.0.0.1:8787",
            description = "Where the scheduler rank's web dashboard listens; :PORT for loopback, 0 for a free port;"
                    + " a taken port falls back to a free one (default ${DEFAULT-VALUE}).")
    String dashboardAddress;

    @Option(names = "--insecure-no-auth", description = "Run the cluster's TCP listeners WITHOUT authentication (default:"
            + " DASK4J_SECRET, or a secret rank 0 generates and shares over MPI and writes to the scheduler file).")
    boolean insecureNoAuth;

    @Option(names = "--allow-classes", paramLabel = "ENTRIES",
            description = "Your task classes workers may build from frames: packages (com.acme.*) or classes, comma-separated;"
                    + " added to " + ClassAllowList.ENV + ".")
    String allowClasses;

    @Option(names = "--no-dashboard", description = "Do not serve the web dashboard.")
    boolean noDashboard;

    /** TLS key material: with it every socket listener of the job (outside clients, between hosts) is tls://. */
    @CommandLine.Mixin
    TlsFlags tls = new TlsFlags();

    /**
     * Runs the command on its own (without {@code ./dask4j}'s main), e.g. {@code CLASSPATH=CP mpirun -x CLASSPATH
     * -np 4 "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED io.dask4j.cli.MpiCommand ...} (a JDK 25's java;
     * the class path in {@code CLASSPATH}, since Open MPI's mpirun may rewrite a {@code --class-path}); repairs
     * Open MPI's rewrite of program arguments first.
     */
    public static void main(String[] args) {
        CommandLine line = new CommandLine(new MpiCommand()).setExecutionExceptionHandler(new ExecutionErrors());
        System.exit(line.execute(OpenMpiArguments.repair(args)));
    }

    @Override
    public Integer call() {
        MpiProtocol mpiProtocol = OptionChecks.parsed(spec, "--protocol", protocol, MpiProtocol::parse);
        OptionChecks.atLeast(spec, "--nthreads", nthreads, 1);
        long memory = OptionChecks.parsed(spec, "--memory-limit", memoryLimit, MemorySize::parse);
        OptionChecks.port(spec, "--scheduler-port", schedulerPort);
        DashboardConfig dashboard = noDashboard ? DashboardConfig.disabled()
                : OptionChecks.parsed(spec, "--dashboard-address", dashboardAddress, DashboardConfig::parse);
        if (noScheduler && schedulerFile == null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--no-scheduler needs the running scheduler's --scheduler-file");
        }
        MpiClusterOptions options = MpiClusterOptions.defaults()
                .withProtocol(mpiProtocol)
                .withThreads(nthreads)
                .withMemoryLimit(memory)
                .withLocalDirectory(localDirectory)
                .withWorkerNamePrefix(name)
                .withHost(host)
                .withTcpListener(true, schedulerPort)
                .withSchedulerFile(schedulerFile)
                .withDashboard(dashboard);
        options = options.withComm(tls.apply(options.comm(), System.getenv()));
        if (insecureNoAuth) {
            options = options.withComm(options.comm().withInsecureNoAuth(true));
        }
        if (allowClasses != null) {
            options = options.withAllowedClasses(options.allowedClasses()
                    .with(OptionChecks.parsed(spec, "--allow-classes", allowClasses, ClassAllowList::parse)));
        }
        if (logDirectory != null) {
            options = options.withLogDirectory(logDirectory);
        }
        if (noScheduler) {
            options = options.withSchedulerRank(RankLayout.NONE);
        }
        return MpiCluster.serve(options);
    }
}
