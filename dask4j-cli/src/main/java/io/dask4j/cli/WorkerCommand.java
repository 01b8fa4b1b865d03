package io.dask4j.cli;

import io.dask4j.jobs.OptionChecks;
import io.dask4j.comm.Address;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.serialize.ClassAllowList;
import io.dask4j.runtime.cluster.MemorySize;
import io.dask4j.runtime.protocol.SchedulerFile;
import io.dask4j.runtime.cluster.WorkerMain;
import io.dask4j.runtime.worker.WorkerConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code dask4j worker (ADDRESS | --scheduler-file F) [--nthreads N] [--memory-limit M]
 * [--local-directory D] [--allow-classes ENTRIES] [--tls-* ...]}: runs a worker until its scheduler goes away (a worker never reconnects).
 */
@Command(name = "worker", mixinStandardHelpOptions = true, description = "Run a dask4j worker.")
public final class WorkerCommand implements Callable<Integer> {

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(arity = "0..1", paramLabel = "ADDRESS", description = "the scheduler's address, e.g. tcp://127.0.0.1:8786")
    String address;

    @Option(names = "--scheduler-file", description = "read the scheduler's address from this JSON file (waits up to 60 s for it)")
    Path schedulerFile;

    @Option(names = "--nthreads", defaultValue = "1", description = "task threads (default: ${DEFAULT-VALUE})")
    int nthreads;

    @Option(names = "--memory-limit", defaultValue = "0",
            description = "bytes (4GiB, 500MB, ...) before spilling to disk; 0 for no limit (default: ${DEFAULT-VALUE})")
    String memoryLimit;

    @Option(names = "--local-directory", description = "where spill files go (default: the temp directory)")
    Path localDirectory;

    @Option(names = "--name", defaultValue = "", description = "a name for logs and the dashboard")
    String name;

    @Option(names = "--listen", description = "addresses to listen on for peers and clients (default: tcp on 127.0.0.1)")
    List<String> listen = new ArrayList<>();

    @CommandLine.Mixin
    TlsFlags tls = new TlsFlags();

    @Option(names = "--insecure-no-auth", description = "listen and connect WITHOUT authentication, for a scheduler"
            + " started so (default: the secret from the scheduler file or DASK4J_SECRET)")
    boolean insecureNoAuth;

    @Option(names = "--allow-classes", paramLabel = "ENTRIES",
            description = "your task classes this worker may build from frames: packages (com.acme.*) or classes (com.acme.Task),"
                    + " comma-separated; added to " + ClassAllowList.ENV + " and the runtime's and JDK's value types")
    String allowClasses;

    @Override
    public Integer call() {
        if ((address == null) == (schedulerFile == null)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "give either ADDRESS or --scheduler-file");
        }
        // Every option before the wait for a scheduler file, which may take a minute.
        Address given = address == null ? null : OptionChecks.parsed(spec, "ADDRESS", address, Address::parse);
        OptionChecks.atLeast(spec, "--nthreads", nthreads, 1);
        long memory = OptionChecks.parsed(spec, "--memory-limit", memoryLimit, MemorySize::parse);
        ClassAllowList allowed = allowClasses == null ? ClassAllowList.defaults()
                : ClassAllowList.defaults().with(OptionChecks.parsed(spec, "--allow-classes", allowClasses, ClassAllowList::parse));
        List<Address> listenAddresses = new ArrayList<>();
        for (String a : listen) {
            listenAddresses.add(OptionChecks.parsed(spec, "--listen", a, Address::parse));
        }
        // A mistyped path would otherwise look like a hang: say what it waits for, and every 30 s that it still does.
        CommOptions options = tls.apply(CommOptions.defaults(), System.getenv()).withInsecureNoAuth(insecureNoAuth)
                .withIdentity(name.isEmpty() ? "worker" : name);
        Address scheduler = given;
        if (scheduler == null) {
            SchedulerFile.Contents contents = SchedulerFile.readContents(schedulerFile, WorkerMain.SCHEDULER_FILE_WAIT,
                    line -> System.err.println(spec.qualifiedName() + ": " + line));
            scheduler = contents.addresses().getFirst();
            options = contents.options(options);
        }
        WorkerConfig config = WorkerConfig.connectingTo(scheduler).withThreads(nthreads)
                .withMemoryLimit(memory).withLocalDirectory(localDirectory).withName(name)
                .withListenAddresses(listenAddresses).withAllowedClasses(allowed).withOptions(options);
        return WorkerMain.run(config);
    }
}
