package io.dask4j.jobs.seed;

import io.dask4j.runtime.cluster.LocalCluster;
import io.dask4j.comm.JvmFlags;
import io.dask4j.array.BlockLayout;
import io.dask4j.array.ChunkSpec;
import io.dask4j.jobs.AotCaches;
import io.dask4j.jobs.JobStoppedException;
import io.dask4j.jobs.MpiJobOptions;
import io.dask4j.jobs.MpiJobs;
import io.dask4j.jobs.OptionChecks;
import io.dask4j.jobs.ProcessLayout;
import io.dask4j.runtime.client.Client;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code dask4j bench seed}: the reference workload (docs/benchmarks.md has its figures): persist {@code x = random((n, n))},
 * then time {@code (x + x.T).transpose().sum()} over several runs and print the median, min and max with
 * the sum (text, or with {@code --json} one object per run set: {@code backend, n, chunk, workers, layout,
 * median_s, min_s, max_s, result, aot}). {@code --layout} chooses where x's blocks live ({@link BlockLayout}): by
 * default block {@code (i, j)} shares a worker with its mirror {@code (j, i)}, so few blocks cross between
 * workers; {@code row-major} bands of block rows make most mirrors cross, the transfer-heavy case.
 *
 * <ul>
 *   <li>{@code inproc}: {@code LocalCluster.startClient(workers, 1)} in this JVM (give it heap: x is 8 n^2 bytes);</li>
 *   <li>{@code tcp}: this command again in a fresh driver JVM (scheduler and client) that starts a local
 *       cluster of {@code workers} worker JVMs x 1 thread ({@code --worker-heap} each); see {@link TcpSeedJob};</li>
 *   <li>{@code mpi}: this command again under {@code mpirun -np workers+2} (scheduler rank 0, client rank 1,
 *       workers on the rest; {@code --client-rank 0}: {@code workers+1} ranks, the client beside the scheduler) with {@code MpiCluster}; see {@link MpiSeedJob}.</li>
 * </ul>
 * Both tcp and mpi jobs thus run in fresh JVMs, which by default start with an AOT cache per role
 * ({@code --aot-cache}, {@link AotCaches}); the JSON says whether a job trained them ({@code aot}). The
 * small-chunk variant is {@code --n 10000 --chunk 500}. Runs on the calling thread.
 */
@Command(name = "seed", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Time (x + x.T).transpose().sum() on a persisted random n x n array (the seed workload; see"
                + " docs/status.md).")
public final class SeedBenchCommand implements Callable<Integer> {

    @Option(names = "--backend", defaultValue = "inproc", description = "inproc, tcp or mpi (default: ${DEFAULT-VALUE})")
    String backend;

    @Option(names = "--n", defaultValue = "20000", description = "rows and columns of x (default: ${DEFAULT-VALUE})")
    int n;

    @Option(names = "--chunk", defaultValue = "auto", description = "auto (about 128 MiB per chunk) or N for N x N chunks (default: ${DEFAULT-VALUE})")
    String chunk;

    @Option(names = "--layout", defaultValue = "mirrors",
            description = "how x's blocks are laid out over the workers: mirrors (block (i,j) with (j,i), the default) or row-major")
    String layout;

    @Option(names = "--workers", defaultValue = "3", description = "workers, 1 thread each (default: ${DEFAULT-VALUE})")
    int workers;

    @Option(names = "--runs", defaultValue = "5", description = "timed runs (default: ${DEFAULT-VALUE})")
    int runs;

    @Option(names = "--warmup", defaultValue = "1", description = "untimed runs first, for the JIT (default: ${DEFAULT-VALUE})")
    int warmup;

    @Option(names = "--rereads", defaultValue = "0",
            description = "after the first persist of x, release it and persist it again this many times on the same workers, "
                    + "each timed (rereads_s): reads by workers whose heap has held data before (default: ${DEFAULT-VALUE})")
    int rereads;

    @Option(names = "--seed", defaultValue = "42", description = "random seed of x (default: ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--input", defaultValue = "random",
            description = "where x comes from: random, zarr:DIR, npy:FILE or hdf5:FILE:/dataset (a square array read by the workers; "
                    + "its persist time is the read; --chunk other than auto re-blocks it) (default: ${DEFAULT-VALUE})")
    String input;

    @Option(names = "--json", description = "print one JSON object instead of text")
    boolean json;

    @Option(names = "--worker-heap", description = "max heap of each worker JVM (tcp) or rank (mpi), e.g. 3g (default: 2 x its share of x + 512m)")
    String workerHeap;

    @Option(names = "--jvm-arg", description = "extra JVM option for worker JVMs (tcp) or ranks (mpi); repeatable")
    List<String> jvmArgs = new ArrayList<>();

    @CommandLine.Mixin
    MpiJobOptions mpiJob = new MpiJobOptions();

    @Option(names = "--mpi-logs", description = "mpi backend: directory for the ranks' logs rank-<r>.log (default: a new temporary one)")
    Path mpiLogs;

    @Option(names = "--aot-cache", defaultValue = "auto",
            description = "tcp and mpi: JDK AOT caches for the job's JVMs, one per role (driver, scheduler, client, worker): "
                    + "auto (under $XDG_CACHE_HOME or ~/.cache, dask4j/aot), a directory, or off. A job whose roles have no "
                    + "cache yet trains them, and its times include that (default: ${DEFAULT-VALUE})")
    String aotCache;

    @Option(names = "--in-mpi-job", hidden = true, description = "set on the ranks of the job the mpi backend starts")
    boolean inMpiJob;

    @Option(names = "--in-tcp-job", hidden = true, description = "set on the driver JVM the tcp backend starts")
    boolean inTcpJob;

    @Option(names = "--role-jvm-arg", hidden = true, description = "tcp driver: a JVM option for its workers only (their AOT cache)")
    List<String> roleJvmArgs = new ArrayList<>();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** The class path of the job's JVMs (tcp driver and workers, mpi ranks): this JVM's, unless a test sets it. */
    String jobClassPath = System.getProperty("java.class.path");

    private final PrintStream out;

    public SeedBenchCommand() {
        this(System.out);
    }

    SeedBenchCommand(PrintStream out) {
        this.out = out;
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new SeedBenchCommand()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        String b = backend.toLowerCase(Locale.ROOT);
        if (!List.of("inproc", "tcp", "mpi").contains(b)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "unknown --backend '" + backend + "': expected inproc, tcp or mpi");
        }
        OptionChecks.atLeast(spec, "--n", n, 1);
        ChunkSpec chunks = OptionChecks.parsed(spec, "--chunk", chunk, ChunkSpec::parse);
        OptionChecks.atLeast(spec, "--workers", workers, 1);
        OptionChecks.atLeast(spec, "--runs", runs, 1);
        OptionChecks.atLeast(spec, "--warmup", warmup, 0);
        OptionChecks.atLeast(spec, "--rereads", rereads, 0);
        mpiJob.check(spec);
        SeedInput from = OptionChecks.parsed(spec, "--input", input, SeedInput::parse);
        input = from.toString(); // absolute: the jobs' processes may start elsewhere
        SeedWorkload workload = new SeedWorkload(n, chunks, blockLayout(), runs, warmup, rereads, seed, from,
                from == SeedInput.RANDOM || !chunk.equalsIgnoreCase("auto"), System.err);
        if (inMpiJob) {
            return MpiSeedJob.runRank(this, workload);
        }
        if (inTcpJob) {
            SeedResult result = TcpSeedJob.runDriver(this, workload);
            System.out.println(SeedResult.LINE_PREFIX + result.toJson());
            return 0;
        }
        SeedResult result = switch (b) {
            case "inproc" -> {
                long need = 8L * n * n;
                if (Runtime.getRuntime().maxMemory() < need + need / 2) {
                    System.err.printf(Locale.ROOT, "warning: this JVM's max heap (%d MiB) is small for x (%d MiB); raise -Xmx%n",
                            Runtime.getRuntime().maxMemory() >> 20, need >> 20);
                }
                try (Client client = LocalCluster.startClient(workers, 1)) {
                    yield workload.run(client, "inproc", workers);
                }
            }
            case "tcp" -> TcpSeedJob.launch(this, aotCaches(TcpSeedJob.ROLES));
            case "mpi" -> MpiSeedJob.launch(this, aotCaches(MpiSeedJob.roles(this)));
            default -> throw new IllegalStateException("no case for backend " + b);
        };
        if (result == null) {
            return 1;
        }
        result = result.withProcesses(ProcessLayout.of(b, workers, mpiJob.clientRank));
        out.println(json ? result.toJson() : result.toText());
        return 0;
    }

    BlockLayout blockLayout() {
        return switch (layout.toLowerCase(Locale.ROOT)) {
            case "mirrors" -> BlockLayout.MIRRORS_TOGETHER;
            case "row-major" -> BlockLayout.ROW_MAJOR;
            default -> throw new CommandLine.ParameterException(spec.commandLine(),
                    "unknown --layout '" + layout + "': expected mirrors or row-major");
        };
    }

    /**
     * The AOT caches of this job ({@link AotCaches}): their directory is named by everything that shapes what
     * the JVMs load and learn (backend, MPI, protocol, workload, JVM options), not by the number of runs.
     */
    AotCaches aotCaches(List<String> roles) throws IOException {
        if (aotCache.equalsIgnoreCase("off")) {
            return AotCaches.OFF;
        }
        String unsupported = AotCaches.unsupportedReason(jobClassPath);
        if (unsupported != null) {
            System.err.println("AOT caches: off: " + unsupported);
            return AotCaches.OFF;
        }
        Path root = (aotCache.equalsIgnoreCase("auto") ? AotCaches.defaultRoot() : Path.of(aotCache)).toAbsolutePath();
        List<String> key = new ArrayList<>(List.of("seed", backend.toLowerCase(Locale.ROOT), mpiJob.mpi, mpiJob.protocol,
                "client-rank-" + mpiJob.clientRank, input,
                Integer.toString(n), chunk, layout, Integer.toString(workers), Long.toString(seed)));
        key.addAll(workerJvmArgs());
        key.addAll(serviceJvmArgs());
        key.addAll(TcpSeedJob.driverJvmArgs());
        AotCaches caches = AotCaches.forJob(root, jobClassPath, key);
        List<String> missing = roles.stream().filter(r -> !caches.has(r)).toList();
        System.err.println(missing.isEmpty() ? "AOT caches: every JVM starts with its role's cache from " + caches.directory()
                : "AOT caches: training " + missing + " in " + caches.directory()
                + " (this job's times include the training; later jobs of this shape start with the caches; --aot-cache off to skip)");
        return caches;
    }

    /** The AOT-cache state of a job that started with {@code caches}: off, training or cached. */
    static String aotState(AotCaches caches, List<String> roles) {
        return !caches.enabled() ? "off" : roles.stream().allMatch(caches::has) ? "cached" : "training";
    }

    /**
     * Runs a job in other processes ({@code command}, whose JVMs of {@code roles} use {@code caches}) and
     * returns the result it printed, labelled with the caches' state; keeps the caches it trained, or drops
     * its staging files if it failed (then null, after {@link MpiJobs#run} said why) or was stopped (then
     * {@link JobStoppedException}).
     */
    SeedResult runJob(List<String> command, AotCaches caches, List<String> roles) throws Exception {
        String state = aotState(caches, roles);
        List<String> results;
        try {
            results = MpiJobs.run(command, SeedResult.LINE_PREFIX, mpiJob.timeoutSeconds, "seed bench");
        } catch (JobStoppedException stopped) {
            caches.discard();
            throw stopped;
        }
        if (results == null) {
            caches.discard();
            return null;
        }
        caches.commit();
        return SeedResult.fromJson(results.getLast()).withAot(state);
    }

    /**
     * JVM options of the mpi job's scheduler and client ranks: the defaults the tcp job's driver JVM has (which
     * holds its scheduler and client), then the user's. Not the workers' heap: with a fixed heap the size of a
     * worker's, G1 made a large young generation and kept allocating into fresh memory, which each rank paid in
     * page faults run after run (up to ~80 huge pages a run each, measured on the 2-core VM).
     */
    List<String> serviceJvmArgs() {
        List<String> args = new ArrayList<>(List.of(JvmFlags.STACK));
        args.addAll(JvmFlags.REQUIRED);
        args.addAll(jvmArgs);
        return args;
    }

    /** JVM options of worker JVMs or ranks: full JIT, a heap sized for their share of x, then the user's. */
    List<String> workerJvmArgs() {
        List<String> args = new ArrayList<>();
        args.add("-Xmx" + heap());
        // The whole heap from the start: G1 otherwise grows (and may shrink) the heap run by run, and every
        // region it grows into is fresh memory, which this VM fills at only ~0.3 GB/s; received blocks then
        // cost more than their transfer. The pages are committed, not touched, so start-up stays fast.
        args.add("-Xms" + heap());
        // No -XX:+UseTransparentHugePages: on this VM a heap in 2 MiB pages is filled far more slowly the first
        // time than one in 4 KiB pages (one JVM reading 3 GiB of blocks into a fresh heap: 16-17 s with huge pages,
        // 4 s without), and every block a worker makes or reads lands in fresh memory. Measured on 3 tcp workers:
        // persisting a 3 GiB Zarr array took 10.6 s with huge pages and 1.9 s without, the random x 18-20 s and
        // 6-10 s, its runs 3.0-4.3 s and 2.3-2.8 s. The kernel's own setting (madvise here) still applies.
        args.add(JvmFlags.STACK);
        args.addAll(JvmFlags.REQUIRED);
        args.addAll(jvmArgs);
        return args;
    }

    private String heap() {
        if (workerHeap != null) {
            return workerHeap;
        }
        long share = 8L * n * n / Math.max(1, workers);
        return ((2 * share >> 20) + 512) + "m";
    }
}
