package io.dask4j.bench.mpi;

import io.dask4j.bench.ByteSizes;
import java.util.Locale;

/**
 * One measured size of an mpi ping-pong: one-way latency is half the round trip, bandwidth is the payload
 * over the median one-way time (gigabytes, 10^9 bytes, per second). Same JSON fields as the tcp bench,
 * plus {@code mpi} (the implementation) and {@code layer} ({@code comm} through the Comm API, {@code
 * binding} for raw MPI calls through the FFM binding alone).
 */
record BenchResult(String backend, String mpi, String layer, long sizeBytes, int iterations, double medianUs, double p99Us) {

    double bandwidthGBps() {
        return sizeBytes / (medianUs * 1e3);
    }

    String toJson() {
        return String.format(Locale.ROOT, "{\"backend\":\"%s\",\"mpi\":\"%s\",\"layer\":\"%s\",\"size_bytes\":%d,"
                + "\"iterations\":%d,\"latency_us_median\":%.3f,\"latency_us_p99\":%.3f,\"bandwidth_gbps\":%.4f}",
                backend, mpi, layer, sizeBytes, iterations, medianUs, p99Us, bandwidthGBps());
    }

    String toRow() {
        return String.format(Locale.ROOT, "%-4s %-8s %-8s %10s %8d %11.2f us %11.2f us %8.3f GB/s", backend, mpi, layer,
                ByteSizes.human(sizeBytes), iterations, medianUs, p99Us, bandwidthGBps());
    }

    static String header() {
        return String.format(Locale.ROOT, "%-4s %-8s %-8s %10s %8s %14s %14s %13s", "back", "mpi", "layer", "size", "rounds",
                "one-way p50", "one-way p99", "bandwidth");
    }
}
