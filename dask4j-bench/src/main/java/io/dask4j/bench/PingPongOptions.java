package io.dask4j.bench;

import io.dask4j.jobs.OptionChecks;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The options every ping-pong benchmark shares (tcp, inproc and mpi take the same sizes and print the
 * same JSON fields), as a picocli mixin: {@code @Mixin PingPongOptions pingPong;}. Filled by picocli on
 * the command's thread before it runs; read-only afterwards.
 */
public final class PingPongOptions {

    /** 8 B and 1 KiB for latency, 1, 16 and 64 MiB for bandwidth (the issues' sizes). */
    public static final long[] DEFAULT_SIZES = {8, 1024, 1L << 20, 16L << 20, 64L << 20};

    /** The largest message: the benchmarks send one array or one MPI message of int count. */
    static final long MAX_SIZE = Integer.MAX_VALUE;

    @Option(names = "--json", description = "one JSON object per line instead of a table")
    public boolean json;

    @Option(names = "--iterations", defaultValue = "20000",
            description = "timed round trips per size, at least 1; a size too large for that many within 1 GiB of traffic"
                    + " gets fewer, and no size fewer than 10 (mpi: --min-rounds) (default: ${DEFAULT-VALUE})")
    public int iterations;

    @Option(names = "--sizes", split = ",", converter = ByteSizes.Converter.class, paramLabel = "SIZE",
            description = "message sizes, in bytes or with a unit (KiB, MiB, GiB), 1 to 2147483647 bytes"
                    + " (default: 8,1024,1MiB,16MiB,64MiB)")
    public long[] sizes;

    /** The sizes asked for, or {@link #DEFAULT_SIZES}. */
    public long[] sizesOrDefault() {
        return sizes == null ? DEFAULT_SIZES.clone() : sizes.clone();
    }

    /** Fails, as a command-line error of {@code spec}, on a count of iterations or a size the benchmarks cannot run. */
    public void check(CommandSpec spec) {
        OptionChecks.atLeast(spec, "--iterations", iterations, 1);
        for (long size : sizesOrDefault()) {
            OptionChecks.atLeast(spec, "--sizes", size, 1);
            if (size > MAX_SIZE) {
                throw new ParameterException(spec.commandLine(),
                        "--sizes must be at most " + MAX_SIZE + " bytes, got " + size);
            }
        }
    }
}
