package io.dask4j.bench.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a report shows, gathered from the benchmarks' JSON: comm round trips by series (a transport, or the raw MPI
 * binding under one MPI) and size, task throughput and round-trip latency by backend, seed workload times by
 * backend (Python Dask among them when it ran), and notes for the reader (why a comparison is absent). Filled by
 * one thread, then read.
 */
final class ReportData {
    /** One message size of one comm series: median and p99 round trip, and bandwidth. */
    record CommRow(String series, long sizeBytes, double latencyUsMedian, double latencyUsP99, double bandwidthGBps) {
    }

    /** One workload of {@code bench tasks} on one backend; the latencies are round-trip's, else NaN. */
    record TaskRow(String backend, String workload, double tasksPerSecond, double latencyUsP50, double latencyUsP99) {
    }

    /** The seed workload on one backend: the median, fastest and slowest of its timed runs. */
    record SeedRow(String backend, long n, double medianSeconds, double minSeconds, double maxSeconds) {
    }

    final List<CommRow> comm = new ArrayList<>();
    final List<TaskRow> tasks = new ArrayList<>();
    final List<SeedRow> seed = new ArrayList<>();
    final List<String> notes = new ArrayList<>();

    void addComm(String series, List<Map<String, Object>> results) {
        for (Map<String, Object> r : results) {
            comm.add(new CommRow(series, num(r, "size_bytes").longValue(), num(r, "latency_us_median").doubleValue(),
                    num(r, "latency_us_p99").doubleValue(), num(r, "bandwidth_gbps").doubleValue()));
        }
    }

    /** MPI comm results: the Comm API layer as {@code mpi (<mpi>)}, the raw binding as {@code raw MPI (<mpi>)}. */
    void addMpiComm(String mpi, List<Map<String, Object>> results) {
        for (Map<String, Object> r : results) {
            if (r.get("size_bytes") != null) {
                addComm(("binding".equals(r.get("layer")) ? "raw MPI (" : "mpi (") + mpi + ")", List.of(r));
            }
        }
    }

    void addTasks(String backend, List<Map<String, Object>> results) {
        for (Map<String, Object> r : results) {
            tasks.add(new TaskRow(backend, String.valueOf(r.get("workload")), num(r, "tasks_per_s").doubleValue(),
                    r.get("latency_us_p50") instanceof Number p50 ? p50.doubleValue() : Double.NaN,
                    r.get("latency_us_p99") instanceof Number p99 ? p99.doubleValue() : Double.NaN));
        }
    }

    void addSeed(String backend, List<Map<String, Object>> results) {
        for (Map<String, Object> r : results) {
            seed.add(new SeedRow(backend, num(r, "n").longValue(), num(r, "median_s").doubleValue(),
                    num(r, "min_s").doubleValue(), num(r, "max_s").doubleValue()));
        }
    }

    private static Number num(Map<String, Object> r, String field) {
        if (r.get(field) instanceof Number n) {
            return n;
        }
        throw new IllegalArgumentException("benchmark result without a number '" + field + "': " + r);
    }
}
