package io.dask4j.runtime.cluster;

import io.dask4j.comm.config.UnknownSettings;
import io.dask4j.runtime.protocol.SchedulerFile;
import io.dask4j.comm.Address;
import io.dask4j.comm.CommOptions;
import io.dask4j.runtime.worker.Worker;
import io.dask4j.runtime.worker.WorkerConfig;
import io.dask4j.comm.serialize.ClassAllowList;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The main class of a worker process, as {@link LocalCluster} spawns it (plain arguments, no CLI
 * library needed):
 * <pre>
 * java --class-path CP io.dask4j.runtime.cluster.WorkerMain (ADDRESS | --scheduler-file F)
 *      [--nthreads N] [--memory-limit M] [--local-directory D] [--name NAME] [--listen ADDRESS]...
 *      [--insecure-no-auth] [--allow-classes com.acme.*,...]
 * </pre>
 * The cluster's secret comes from the scheduler file or {@code DASK4J_SECRET} (the file's wins);
 * without either, the worker's tcp listener refuses to start unless {@code --insecure-no-auth} is given.
 * Exits 0 when the scheduler closes or goes away, 2 on bad arguments, 1 if it cannot start. Waits up to
 * {@link #SCHEDULER_FILE_WAIT} for a scheduler file, saying so on standard error.
 */
public final class WorkerMain {
    /** How long a worker given a scheduler file waits for the scheduler to write it. */
    public static final Duration SCHEDULER_FILE_WAIT = Duration.ofSeconds(60);
    /** The explicit opt-out of authentication, for a cluster whose scheduler runs without a secret. */
    public static final String INSECURE_NO_AUTH = "--insecure-no-auth";

    private WorkerMain() {
    }

    public static void main(String[] args) {
        UnknownSettings.warnOnce();
        WorkerConfig config;
        try {
            config = parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("dask4j worker: " + e.getMessage());
            System.exit(2);
            return;
        }
        int code = run(config);
        System.exit(code);
    }

    /** Starts a worker and blocks until it closes; returns the exit code. */
    public static int run(WorkerConfig config) {
        Worker worker;
        try {
            worker = Worker.start(config);
        } catch (RuntimeException e) {
            System.err.println("dask4j worker: cannot start: " + e);
            return 1;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(worker::close, "worker-shutdown"));
        worker.closed().join();
        return 0;
    }

    static WorkerConfig parse(String[] args) {
        String address = null;
        Path schedulerFile = null;
        int nthreads = 1;
        long memoryLimit = 0;
        Path dir = null;
        String name = "";
        List<Address> listen = new ArrayList<>();
        boolean insecure = false;
        ClassAllowList allowed = ClassAllowList.defaults();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--nthreads" -> nthreads = Integer.parseInt(value(args, ++i, a));
                case "--memory-limit" -> memoryLimit = MemorySize.parse(value(args, ++i, a));
                case "--local-directory" -> dir = Path.of(value(args, ++i, a));
                case "--name" -> name = value(args, ++i, a);
                case "--listen" -> listen.add(Address.parse(value(args, ++i, a)));
                case "--scheduler-file" -> schedulerFile = Path.of(value(args, ++i, a));
                case INSECURE_NO_AUTH -> insecure = true;
                case "--allow-classes" -> allowed = allowed.with(ClassAllowList.parse(value(args, ++i, a)));
                default -> {
                    if (a.startsWith("--") || address != null) {
                        throw new IllegalArgumentException("unexpected argument '" + a + "'");
                    }
                    address = a;
                }
            }
        }
        if ((address == null) == (schedulerFile == null)) {
            throw new IllegalArgumentException("give either a scheduler ADDRESS or --scheduler-file");
        }
        CommOptions options = CommOptions.defaults().withInsecureNoAuth(insecure).withIdentity(name.isEmpty() ? "worker" : name);
        Address scheduler;
        if (address != null) {
            scheduler = Address.parse(address);
        } else {
            SchedulerFile.Contents contents = SchedulerFile.readContents(schedulerFile, SCHEDULER_FILE_WAIT,
                    line -> System.err.println("dask4j worker: " + line));
            scheduler = contents.addresses().getFirst();
            options = contents.options(options);
        }
        return WorkerConfig.connectingTo(scheduler).withThreads(nthreads).withMemoryLimit(memoryLimit)
                .withLocalDirectory(dir).withName(name).withListenAddresses(listen).withAllowedClasses(allowed)
                .withOptions(options);
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }
}
