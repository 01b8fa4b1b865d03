package io.dask4j.bench.comm;

import io.dask4j.bench.ByteSizes;
import io.dask4j.comm.Comm;
import io.dask4j.comm.Frame;
import io.dask4j.comm.Message;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * Ping-pong over one comm: write a message of one frame, wait for the echo, record the round trip.
 * One-way latency is half the round trip; bandwidth is the payload over the median one-way time. The
 * payload array is allocated once and reused; each reply is checked for its size so that a broken
 * echo cannot pass as fast. Runs on the calling thread.
 */
final class PingPong {

    record Result(String backend, long sizeBytes, int iterations, double medianUs, double p99Us) {

        double bandwidthGBps() {
            return sizeBytes / (medianUs * 1e3);
        }

        String toRow() {
            return String.format(Locale.ROOT, "%-7s %10s %8d %11.2f us %11.2f us %7.3f GB/s", backend, ByteSizes.human(sizeBytes),
                    iterations, medianUs, p99Us, bandwidthGBps());
        }

        String toJson() {
            return String.format(Locale.ROOT, "{\"backend\":\"%s\",\"size_bytes\":%d,\"iterations\":%d,"
                    + "\"latency_us_median\":%.3f,\"latency_us_p99\":%.3f,\"bandwidth_gbps\":%.4f}",
                    backend, sizeBytes, iterations, medianUs, p99Us, bandwidthGBps());
        }
    }

    private PingPong() {
    }

    static Result run(Comm comm, String backend, long size, int warmup, int rounds) {
        Message ping = Message.of("ping", Map.of(), List.of(Frame.of(new byte[Math.toIntExact(size)])));
        for (int i = 0; i < warmup; i++) {
            roundTrip(comm, ping, size);
        }
        Histogram rtt = new Histogram(1, 600_000_000_000L, 3);
        for (int i = 0; i < rounds; i++) {
            long start = System.nanoTime();
            roundTrip(comm, ping, size);
            rtt.recordValue(Math.max(1, System.nanoTime() - start));
        }
        return new Result(backend, size, rounds, rtt.getValueAtPercentile(50) / 2e3, rtt.getValueAtPercentile(99) / 2e3);
    }

    private static void roundTrip(Comm comm, Message ping, long size) {
        comm.write(ping);
        Message pong = comm.read();
        if (pong.frameBytes() != size) {
            throw new IllegalStateException("echo returned " + pong.frameBytes() + " bytes instead of " + size);
        }
        pong.release();
    }
}
