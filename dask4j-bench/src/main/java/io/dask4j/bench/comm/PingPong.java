package io.dask4j.bench.comm;

import io.dask4j.bench.ByteSizes;
import io.dask4j.comm.Frame;
import io.dask4j.comm.Message;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * Ping-pong over one comm per receive mode: write a message of one frame, wait for the echo, record the round
 * trip. One-way latency is half the round trip; bandwidth is the payload over the median one-way time. With several
 * comms (modes, or the same mode twice as an A/A pair) the rounds are split into {@link #BLOCKS} blocks run in
 * turn, so that a change in the machine's load falls on every mode alike. The payload array is allocated once and
 * reused; each reply is checked for its size so that a broken echo cannot pass as fast.
 */
final class PingPong {

    /** Blocks per comm when several are compared. */
    static final int BLOCKS = 10;

    record Result(String backend, String receive, long sizeBytes, int iterations, double medianUs, double p99Us) {

        double bandwidthGBps() {
            return sizeBytes / (medianUs * 1e3);
        }

        String toRow() {
            return String.format(Locale.ROOT, "%-7s %-13s %10s %8d %11.2f us %11.2f us %7.3f GB/s", backend, receive,
                    ByteSizes.human(sizeBytes), iterations, medianUs, p99Us, bandwidthGBps());
        }

        String toJson() {
            return String.format(Locale.ROOT, "{\"backend\":\"%s\",\"size_bytes\":%d,\"iterations\":%d,"
                    + "\"latency_us_median\":%.3f,\"latency_us_p99\":%.3f,\"bandwidth_gbps\":%.4f,\"receive\":\"%s\"}",
                    backend, sizeBytes, iterations, medianUs, p99Us, bandwidthGBps(), receive);
        }
    }

    private PingPong() {
    }

    static List<Result> run(List<RoundTrips> comms, String backend, long size, int warmup, int rounds)
            throws InterruptedException {
        Message ping = Message.of("ping", Map.of(), List.of(Frame.of(new byte[Math.toIntExact(size)])));
        for (RoundTrips c : comms) {
            c.run(ping, size, warmup, null);
        }
        int blocks = comms.size() == 1 ? 1 : Math.min(BLOCKS, rounds);
        List<Histogram> rtts = new ArrayList<>();
        for (int i = 0; i < comms.size(); i++) {
            rtts.add(new Histogram(1, 600_000_000_000L, 3));
        }
        for (int b = 0; b < blocks; b++) {
            int n = rounds / blocks + (b < rounds % blocks ? 1 : 0);
            for (int i = 0; i < comms.size(); i++) {
                comms.get(i).run(ping, size, n, rtts.get(i));
            }
        }
        List<Result> results = new ArrayList<>();
        for (int i = 0; i < comms.size(); i++) {
            Histogram rtt = rtts.get(i);
            results.add(new Result(backend, comms.get(i).label(), size, rounds,
                    rtt.getValueAtPercentile(50) / 2e3, rtt.getValueAtPercentile(99) / 2e3));
        }
        return results;
    }
}
