package io.dask4j.jobs;

import java.util.Map;

/**
 * Which processes a benchmark's cluster ran in, for its JSON: the mpi backend's layout depends on {@code
 * --client-rank} (the client on its own rank 1, or beside the scheduler on rank 0), and a comparison between
 * backends is only like with like when the process counts match. Immutable.
 *
 * @param description the roles of the processes, e.g. {@code "rank 0 scheduler+client, ranks 1+ workers"}
 * @param processes how many processes the cluster ran in (the launching command not counted)
 * @param clientRank the client's MPI rank, or -1 outside an mpi job
 */
public record ProcessLayout(String description, int processes, int clientRank) {

    /** Everything in one JVM. */
    public static ProcessLayout inproc() {
        return new ProcessLayout("one JVM: scheduler, client and workers", 1, -1);
    }

    /** A local cluster whose scheduler runs beside the client, with one JVM per worker. */
    public static ProcessLayout tcp(int workers) {
        return new ProcessLayout("scheduler+client JVM, one JVM per worker", workers + 1, -1);
    }

    /** An mpirun job with the client on {@code clientRank} (0: beside the scheduler; 1: a rank of its own). */
    public static ProcessLayout mpi(int workers, int clientRank) {
        return clientRank == 0
                ? new ProcessLayout("rank 0 scheduler+client, ranks 1+ workers", workers + 1, 0)
                : new ProcessLayout("rank 0 scheduler, rank 1 client, ranks 2+ workers", workers + 2, clientRank);
    }

    /** The layout of {@code backend} (inproc, tcp or mpi). */
    public static ProcessLayout of(String backend, int workers, int clientRank) {
        return switch (backend) {
            case "inproc" -> inproc();
            case "tcp" -> tcp(workers);
            default -> mpi(workers, clientRank);
        };
    }

    /** Adds {@code process_layout}, {@code processes} and, in an mpi job, {@code client_rank} to {@code json}. */
    public void into(Map<String, Object> json) {
        json.put("process_layout", description);
        json.put("processes", processes);
        if (clientRank >= 0) {
            json.put("client_rank", clientRank);
        }
    }

    /** The layout written by {@link #into}, or null if {@code json} has none. */
    public static ProcessLayout from(Map<?, ?> json) {
        if (!(json.get("process_layout") instanceof String d) || !(json.get("processes") instanceof Number p)) {
            return null;
        }
        return new ProcessLayout(d, p.intValue(), json.get("client_rank") instanceof Number c ? c.intValue() : -1);
    }
}
