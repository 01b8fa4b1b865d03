package io.dask4j.bench;

import picocli.CommandLine.Option;

/**
 * The options every ping-pong benchmark shares (tcp, inproc and mpi take the same sizes and print the
 * same JSON fields), as a picocli mixin: {@code @Mixin PingPongOptions pingPong;}. Filled by picocli on
 * the command's thread before it runs; read-only afterwards.
 */
public final class PingPongOptions {

    /** 8 B and 1 KiB for latency, 1, 16 and 64 MiB for bandwidth (the issues' sizes). */
    public static final long[] DEFAULT_SIZES = {8, 1024, 1L << 20, 16L << 20, 64L << 20};

    @Option(names = "--json", description = "one JSON object per line instead of a table")
    public boolean json;

    @Option(names = "--iterations", defaultValue = "20000",
            description = "round trips for small messages; large ones use fewer (default: ${DEFAULT-VALUE})")
    public int iterations;

    @Option(names = "--sizes", split = ",", description = "message sizes in bytes (default: 8,1024,1MiB,16MiB,64MiB)")
    public long[] sizes;

    /** The sizes asked for, or {@link #DEFAULT_SIZES}. */
    public long[] sizesOrDefault() {
        return sizes == null ? DEFAULT_SIZES.clone() : sizes.clone();
    }
}
