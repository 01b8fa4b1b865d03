package io.dask4j.cli;

import io.dask4j.jobs.NestedCommands;
import io.dask4j.jobs.JobStoppedException;
import io.dask4j.mpi.launch.MpiLaunchers;
import io.dask4j.jobs.OptionChecks;
import io.dask4j.jobs.seed.SeedBenchCommand;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code dask4j demo}: the main job a newcomer runs. It computes the reference workload
 * (external design notes), {@code (x + x.T).transpose().sum()} on a persisted random n x n array, on a real
 * cluster: under {@code mpirun -np 5} (1 scheduler, 1 client, 3 workers talking MPI) when an MPI launcher is
 * installed, otherwise on a local cluster of worker processes over tcp. It says which it used, and why; if the
 * MPI job fails it runs on tcp instead, but not if it was stopped (Ctrl-C, SIGTERM): then it ends with the
 * signal's status. Called by picocli on the CLI's main thread.
 */
@Command(name = "demo", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Run a real computation on a local cluster (over MPI when mpirun is found).")
final class DemoCommand implements Callable<Integer> {

    /**
     * x alone is 8 n^2 bytes; each worker's heap is sized at twice its share plus slack (the seed bench's
     * rule), so the job needs about 3x that.
     */
    private static final long BYTES_PER_ELEMENT_NEEDED = 24;

    @Option(names = "--local", description = "use a local tcp cluster even when mpirun is found")
    boolean local;

    @Option(names = "--n", description = "rows and columns of x (default: 20000, or less on a machine with little memory)")
    Integer n;

    @Option(names = "--runs", defaultValue = "3", description = "timed runs (default: ${DEFAULT-VALUE})")
    int runs;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        OptionChecks.atLeast(spec, "--runs", runs, 1);
        if (n != null) {
            OptionChecks.atLeast(spec, "--n", n, 1);
        }
        int size = n != null ? n : sizeForMemory();
        String mpi = local ? null : MpiLaunchers.installed();
        System.out.println("dask4j demo: sum of (x + x.T).transpose() for a random " + size + " x " + size
                + " array (" + (8L * size * size >> 20) + " MiB), 3 workers x 1 thread");
        if (mpi != null) {
            System.out.println("running under " + MpiLaunchers.find(mpi) + " -np 5 (" + mpi + "): rank 0 scheduler, rank 1 client, ranks 2-4 workers, over mpi://");
            int code = runSeed(List.of("--backend", "mpi", "--mpi", mpi), size);
            // Stopped (Ctrl-C, SIGTERM): whoever stopped it wants the demo to end, not to start again over tcp.
            if (code == 0 || JobStoppedException.isStopStatus(code)) {
                return code;
            }
            System.out.println("the MPI job failed (see above); running on a local tcp cluster instead");
        } else {
            System.out.println(local ? "running on a local cluster of 3 worker processes over tcp (--local)"
                    : "no mpirun of Open MPI or MPICH found on the PATH: running on a local cluster of 3 worker "
                    + "processes over tcp (install openmpi-bin or mpich, or load your site's MPI module, to run over MPI)");
        }
        return runSeed(List.of("--backend", "tcp"), size);
    }

    private int runSeed(List<String> backend, int size) {
        List<String> args = new ArrayList<>(backend);
        // No AOT caches: a newcomer's first demo would pay for training them (seconds of cache assembly as the
        // JVMs exit) and leave ~100 MiB under ~/.cache; the bench command keeps them by default.
        args.addAll(List.of("--n", Integer.toString(size), "--workers", "3", "--runs", Integer.toString(runs), "--aot-cache", "off"));
        return NestedCommands.nested(spec, new SeedBenchCommand(), "dask4j bench seed").execute(args.toArray(String[]::new));
    }

    private int sizeForMemory() {
        long physical = physicalMemoryBytes();
        int size = 20_000;
        while (size > 2_000 && BYTES_PER_ELEMENT_NEEDED * size * size > physical / 5 * 3) {
            size /= 2;
        }
        if (size < 20_000) {
            System.out.println("this machine has " + (physical >> 20) + " MiB of memory: using n = " + size
                    + " instead of 20000 (which needs about " + (BYTES_PER_ELEMENT_NEEDED * 20_000L * 20_000 >> 30) + " GiB)");
        }
        return size;
    }

    private static long physicalMemoryBytes() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getTotalMemorySize();
        }
        return Runtime.getRuntime().maxMemory();
    }
}
