package io.dask4j.cli;

import io.dask4j.comm.config.ConfigSource;
import io.dask4j.comm.config.Settings;
import io.dask4j.jobs.OptionChecks;
import io.dask4j.comm.Address;
import io.dask4j.comm.CommOptions;
import io.dask4j.runtime.protocol.SchedulerFile;
import io.dask4j.runtime.dashboard.DashboardConfig;
import io.dask4j.runtime.dashboard.DashboardServer;
import io.dask4j.runtime.scheduler.Scheduler;
import io.dask4j.runtime.scheduler.SchedulerConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code dask4j scheduler [--host H] [--port P] [--protocol tcp|tls] [--tls-* ...] [--scheduler-file F]
 * [--listen ADDRESS]... [--dashboard-address A | --no-dashboard]}: runs a scheduler until interrupted. Once it listens it
 * prints its address, the dashboard's URL (127.0.0.1:8787 by default, a free port if that is taken) and
 * where its log goes, and, if asked, writes the scheduler file (JSON, atomically), which it deletes again
 * on exit.
 */
@Command(name = "scheduler", mixinStandardHelpOptions = true, description = "Run a dask4j scheduler.")
public final class SchedulerCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "interface to listen on (default: ${DEFAULT-VALUE})")
    String host;

    @Option(names = "--port", defaultValue = "8786", description = "tcp port, 0 for any free one (default: ${DEFAULT-VALUE})")
    int port;

    @Option(names = "--protocol", paramLabel = "tcp|tls", description = "tcp, or tls for TLS-encrypted comms (default: "
            + "tls when TLS key material is given by --tls-* options or DASK4J_TLS_* variables, else tcp)")
    String protocol;

    @CommandLine.Mixin
    TlsFlags tls = new TlsFlags();

    @Option(names = "--scheduler-file", description = "write the scheduler's address to this JSON file")
    Path schedulerFile;

    @Option(names = "--listen", description = "further addresses to listen on (for example inproc://name)")
    List<String> extra = new ArrayList<>();

    @Option(names = "--allowed-failures", defaultValue = "3",
            description = "workers a task may take down before it is marked erred (default: ${DEFAULT-VALUE})")
    int allowedFailures;

    @Option(names = "--heartbeat-timeout", defaultValue = "30",
            description = "seconds without a heartbeat before a worker is removed (default: ${DEFAULT-VALUE})")
    int heartbeatSeconds;

    @Option(names = "--dashboard-address", defaultValue = "127.0.0.1:8787", paramLabel = "HOST:PORT",
            description = "where the web dashboard listens; :PORT for loopback, port 0 for any free one; a taken port"
                    + " falls back to a free one (default: ${DEFAULT-VALUE})")
    String dashboardAddress;

    @Option(names = "--no-dashboard", description = "do not serve the web dashboard")
    boolean noDashboard;

    @Option(names = "--insecure-no-auth", description = "run WITHOUT authentication: anyone who can reach the port may"
            + " register, submit, and read or overwrite data (default: the secret in DASK4J_SECRET, or a generated one"
            + " written to the scheduler file)")
    boolean insecureNoAuth;

    @Option(names = "--dashboard-allow-host", paramLabel = "NAME",
            description = "a host name the dashboard answers to besides loopback names, IP addresses and, when it listens"
                    + " beyond loopback, this machine's name (requests naming any other host are refused); repeatable")
    List<String> dashboardHosts = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        OptionChecks.port(spec, "--port", port);
        OptionChecks.atLeast(spec, "--allowed-failures", allowedFailures, 0);
        OptionChecks.atLeast(spec, "--heartbeat-timeout", heartbeatSeconds, 1);
        DashboardConfig dashboard = noDashboard ? DashboardConfig.disabled()
                : OptionChecks.parsed(spec, "--dashboard-address", dashboardAddress, DashboardConfig::parse)
                        .withAllowedHosts(dashboardHosts);
        CommOptions options = tls.apply(CommOptions.defaults(), System.getenv()).withInsecureNoAuth(insecureNoAuth)
                .withIdentity("scheduler");
        String scheme = protocol != null ? protocol : options.tls() != null ? "tls" : "tcp";
        if (!scheme.equals("tcp") && !scheme.equals("tls")) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--protocol must be tcp or tls, not " + scheme);
        }
        List<Address> addresses = new ArrayList<>();
        addresses.add(OptionChecks.parsed(spec, "--host", host, h -> Address.hostPort(scheme, h, port)));
        for (String a : extra) {
            addresses.add(OptionChecks.parsed(spec, "--listen", a, Address::parse));
        }
        SchedulerConfig config = SchedulerConfig.listeningOn(addresses.toArray(Address[]::new)).withOptions(options)
                .withAllowedFailures(allowedFailures).withHeartbeatTimeout(Duration.ofSeconds(heartbeatSeconds));
        Scheduler scheduler = Scheduler.start(config);
        DashboardServer board;
        try {
            board = dashboard.enabled() ? DashboardServer.start(scheduler, dashboard) : null;
        } catch (RuntimeException e) {
            scheduler.close();
            throw e;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (board != null) {
                board.close();
            }
            if (schedulerFile != null) {
                SchedulerFile.delete(schedulerFile);
            }
            scheduler.close();
            stopped.countDown();
        }, "scheduler-shutdown"));
        if (schedulerFile != null) {
            SchedulerFile.write(schedulerFile, scheduler.addresses(), scheduler.config().options());
        }
        System.out.println("dask4j scheduler listening at " + scheduler.addresses());
        System.out.println("authentication: " + authentication(options, scheduler.config().options()));
        System.out.println("tls: " + (options.tls() == null ? "off" : options.tls()));
        System.out.println("dashboard: " + (board == null ? "off (--no-dashboard)" : board.url()
                + (board.fellBackToFreePort() ? " (port " + dashboard.port() + " was taken)" : "")));
        System.out.println("logs: standard error, level " + Settings.LOG_LEVEL.stringValue(ConfigSource.system(), "WARN")
                + " (set DASK4J_LOG_LEVEL=INFO for more)");
        System.out.flush();
        stopped.await();
        return 0;
    }

    /** Where workers and clients find the secret; never the secret itself, since output often ends up in shared logs. */
    private String authentication(CommOptions given, CommOptions used) {
        if (!used.hasSecret() && used.tls() != null && used.tls().provesMembership()) {
            return "client certificates (mutual TLS, --tls-no-secret): no cluster secret";
        }
        if (!used.hasSecret()) {
            return "OFF (--insecure-no-auth): anyone who can reach the port can use this cluster";
        }
        if (given.hasSecret()) {
            return "the secret in " + CommOptions.SECRET_ENV;
        }
        return schedulerFile == null
                ? "a generated secret; without --scheduler-file no worker or client can learn it: give --scheduler-file,"
                + " or set " + CommOptions.SECRET_ENV
                : "a generated secret, in the scheduler file " + schedulerFile + " (readable by you only)";
    }
}
