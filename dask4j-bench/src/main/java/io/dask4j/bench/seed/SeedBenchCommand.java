package io.dask4j.bench.seed;

import io.dask4j.array.BlockLayout;
import io.dask4j.array.ChunkSpec;
import io.dask4j.bench.MpiJobOptions;
import io.dask4j.launcher.OpenMpiArguments;
import io.dask4j.runtime.client.Client;
import io.dask4j.runtime.cluster.LocalCluster;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code dask4j bench seed}: the reference workload of DESIGN.md §7 — persist {@code x = random((n, n))},
 * then time {@code (x + x.T).transpose().sum()} over several runs and print the median, min and max with
 * the sum (text, or with {@code --json} one object per run set: {@code backend, n, chunk, workers, layout,
 * median_s, min_s, max_s, result}). {@code --layout} chooses where x's blocks live ({@link BlockLayout}): by
 * default block {@code (i, j)} shares a worker with its mirror {@code (j, i)}, so few blocks cross between
 * workers; {@code row-major} bands of block rows make most mirrors cross, the transfer-heavy case.
 *
 * <ul>
 *   <li>{@code inproc}: {@code Client.local(workers, 1)} in this JVM (give it heap: x is 8 n^2 bytes);</li>
 *   <li>{@code tcp}: a local cluster of {@code workers} worker JVMs x 1 thread ({@code --worker-heap} each);</li>
 *   <li>{@code mpi}: this command again under {@code mpirun -np workers+2} (scheduler rank 0, client rank 1,
 *       workers on the rest) with {@code MpiCluster}; see {@link MpiSeedJob}.</li>
 * </ul>
 * The small-chunk variant is {@code --n 10000 --chunk 500}. Runs on the calling thread.
 */
@Command(name = "seed", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Time (x + x.T).transpose().sum() on a persisted random n x n array (DESIGN.md §7).")
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

    @Option(names = "--seed", defaultValue = "42", description = "random seed of x (default: ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--json", description = "print one JSON object instead of text")
    boolean json;

    @Option(names = "--worker-heap", description = "max heap of each worker JVM (tcp) or rank (mpi), e.g. 3g (default: 2 x its share of x + 512m)")
    String workerHeap;

    @Option(names = "--jvm-arg", description = "extra JVM option for worker JVMs (tcp) or ranks (mpi); repeatable")
    List<String> jvmArgs = new ArrayList<>();

    @CommandLine.Mixin
    MpiJobOptions mpiJob = new MpiJobOptions();

    @Option(names = "--mpi-logs", description = "mpi backend: directory for the ranks' logs rank-<r>.log (default: a new temporary one)")
    java.nio.file.Path mpiLogs;

    @Option(names = "--in-mpi-job", hidden = true, description = "set on the ranks of the job the mpi backend starts")
    boolean inMpiJob;

    private final PrintStream out;

    public SeedBenchCommand() {
        this(System.out);
    }

    SeedBenchCommand(PrintStream out) {
        this.out = out;
    }

    public static void main(String[] args) {
        // On a rank of the mpi job: Open MPI's mpirun may have rewritten an argument (a log directory named
        // ".../logs-tcp", say); see OpenMpiArguments.
        System.exit(new CommandLine(new SeedBenchCommand()).execute(OpenMpiArguments.repair(args)));
    }

    @Override
    public Integer call() throws Exception {
        ChunkSpec spec = ChunkSpec.parse(chunk);
        if (workers < 1) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--workers must be at least 1");
        }
        SeedWorkload workload = new SeedWorkload(n, spec, blockLayout(), runs, warmup, seed, System.err);
        String b = backend.toLowerCase(Locale.ROOT);
        if (inMpiJob) {
            return MpiSeedJob.runRank(this, workload);
        }
        SeedResult result = switch (b) {
            case "inproc" -> {
                long need = 8L * n * n;
                if (Runtime.getRuntime().maxMemory() < need + need / 2) {
                    System.err.printf(Locale.ROOT, "warning: this JVM's max heap (%d MiB) is small for x (%d MiB); raise -Xmx%n",
                            Runtime.getRuntime().maxMemory() >> 20, need >> 20);
                }
                try (Client client = Client.local(workers, 1)) {
                    yield workload.run(client, "inproc", workers);
                }
            }
            case "tcp" -> {
                try (LocalCluster cluster = LocalCluster.builder().workers(workers).threadsPerWorker(1).processes(true)
                        .jvmArgs(workerJvmArgs()).start();
                     Client client = cluster.client()) {
                    yield workload.run(client, "tcp", workers);
                }
            }
            case "mpi" -> MpiSeedJob.launch(this);
            default -> throw new CommandLine.ParameterException(new CommandLine(this),
                    "unknown backend '" + backend + "': expected inproc, tcp or mpi");
        };
        if (result == null) {
            return 1;
        }
        out.println(json ? result.toJson() : result.toText());
        return 0;
    }

    BlockLayout blockLayout() {
        return switch (layout.toLowerCase(Locale.ROOT)) {
            case "mirrors" -> BlockLayout.MIRRORS_TOGETHER;
            case "row-major" -> BlockLayout.ROW_MAJOR;
            default -> throw new CommandLine.ParameterException(new CommandLine(this),
                    "unknown --layout '" + layout + "': expected mirrors or row-major");
        };
    }

    /** JVM options of worker JVMs or ranks: full JIT, a heap sized for their share of x in huge pages, then the user's. */
    List<String> workerJvmArgs() {
        List<String> args = new ArrayList<>();
        args.add("-Xmx" + heap());
        // The whole heap from the start: G1 otherwise grows (and may shrink) the heap run by run, and every
        // region it grows into is fresh memory, which this VM fills at only ~0.3 GB/s; received blocks then
        // cost more than their transfer. The pages are committed, not touched, so start-up stays fast.
        args.add("-Xms" + heap());
        // Heap in 2 MiB pages where the kernel offers them (madvise): far fewer page faults on fresh memory and
        // TLB misses in the transposed reads. Measured on 5 ranks / 2 cores: the first row-major runs of a job
        // take about 2 s instead of 4-7 s, and the 20000² runs about 5% less on both transports.
        args.add("-XX:+UseTransparentHugePages");
        args.add("-Xss1m");
        args.add("--enable-native-access=ALL-UNNAMED");
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
