package io.dask4j.jobs.seed;

import io.dask4j.array.BlockLayout;
import io.dask4j.array.ChunkSpec;
import io.dask4j.array.DArray;
import io.dask4j.array.DArrays;
import io.dask4j.runtime.client.Client;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeoutException;

/**
 * The seed workload on any client: persist {@code x = random((n, n))} (or an array read from a file, see {@link
 * SeedInput}) with the given block layout, wait for it, optionally release it and persist it again a few times on
 * the same workers (re-reads: a file read by workers whose heap has held data before), then time {@code
 * (x + x.T).transpose().sum()}. Each run builds the expression anew, so its keys are fresh and it really computes
 * (compute releases its keys afterwards; x stays). Runs on the caller's thread.
 */
public final class SeedWorkload {
    private final int n;
    private final ChunkSpec chunks;
    private final BlockLayout layout;
    private final int runs;
    private final int warmup;
    private final int rereads;
    private final long seed;
    private final SeedInput input;
    private final boolean explicitChunks;
    private final PrintStream progress;

    public SeedWorkload(int n, ChunkSpec chunks, BlockLayout layout, int runs, int warmup, long seed, PrintStream progress) {
        this(n, chunks, layout, runs, warmup, 0, seed, SeedInput.RANDOM, true, progress);
    }

    /**
     * A workload whose {@code x} comes from {@code input}; {@code explicitChunks} says whether {@code chunks} was
     * given (a file's array otherwise keeps the file's chunking); after the first persist, x is released and
     * persisted again {@code rereads} times.
     */
    SeedWorkload(int n, ChunkSpec chunks, BlockLayout layout, int runs, int warmup, int rereads, long seed, SeedInput input,
                 boolean explicitChunks, PrintStream progress) {
        if (n <= 0 || runs <= 0 || warmup < 0 || rereads < 0) {
            throw new IllegalArgumentException("need n > 0, runs > 0, warmup >= 0 and rereads >= 0");
        }
        this.n = n;
        this.chunks = chunks;
        this.layout = layout;
        this.runs = runs;
        this.warmup = warmup;
        this.rereads = rereads;
        this.seed = seed;
        this.input = input;
        this.explicitChunks = explicitChunks;
        this.progress = progress;
    }

    public SeedResult run(Client client, String backend, int workers) throws TimeoutException {
        long t0 = System.nanoTime();
        DArray x = persisted(client);
        double persist = (System.nanoTime() - t0) / 1e9;
        int size = x.shape()[0];
        progress.printf(Locale.ROOT, "persisted %s in %.2f s%n", x, persist);
        List<Double> again = new ArrayList<>();
        for (int i = 0; i < rereads; i++) {
            // A fresh array (new keys) read anew into the same workers, which now reuse heap that held the last x.
            x.release();
            long t1 = System.nanoTime();
            x = persisted(client);
            again.add((System.nanoTime() - t1) / 1e9);
            progress.printf(Locale.ROOT, "persisted again in %.2f s%n", again.getLast());
        }
        try {
            List<Double> warm = new ArrayList<>();
            for (int i = 0; i < warmup; i++) {
                warm.add(once(client, x)[0]);
            }
            List<Double> times = new ArrayList<>();
            double result = Double.NaN;
            for (int i = 0; i < runs; i++) {
                double[] r = once(client, x);
                times.add(r[0]);
                if (i > 0 && r[1] != result) {
                    progress.printf(Locale.ROOT, "warning: run %d gave %.17g, run %d gave %.17g%n", i, r[1], i - 1, result);
                }
                result = r[1];
                progress.printf(Locale.ROOT, "run %d: %.3f s, sum=%.6e%n", i + 1, r[0], r[1]);
            }
            return new SeedResult(backend, size, x.chunks().colSize(0), workers, SeedResult.layoutName(layout), times, warm, persist, again, result, "off", null);
        } finally {
            x.release();
        }
    }

    private DArray persisted(Client client) throws TimeoutException {
        return input.array(n, chunks, explicitChunks, seed).persist(client, layout).await(Duration.ofMinutes(20));
    }

    /** One timed computation with fresh keys: {@code [seconds, sum]}. */
    private static double[] once(Client client, DArray x) {
        long t0 = System.nanoTime();
        double sum = x.add(x.T()).transpose().sum().compute(client);
        return new double[]{(System.nanoTime() - t0) / 1e9, sum};
    }
}
