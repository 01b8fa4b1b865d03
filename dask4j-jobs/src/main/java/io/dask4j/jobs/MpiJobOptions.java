package io.dask4j.jobs;

import io.dask4j.launcher.MpiProtocol;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The options of a benchmark's mpi backend, shared by the commands that run as an {@code mpirun} job
 * ({@code bench seed}, {@code bench tasks}) through {@link MpiJobs}; a picocli mixin. Set by picocli on the
 * command's thread, read after parsing.
 */
public final class MpiJobOptions {

    @Option(names = "--mpi", defaultValue = "openmpi", description = "mpi backend: openmpi or mpich (default: ${DEFAULT-VALUE})")
    public String mpi;

    @Option(names = "--protocol", defaultValue = "mpi",
            description = "mpi backend: comms between the ranks, mpi, tcp, or auto (mpi between the ranks of a host, tcp"
                    + " between hosts) (default: ${DEFAULT-VALUE})")
    public String protocol;

    @Option(names = "--client-rank", defaultValue = "1",
            description = "mpi backend: the client's rank, 1 (its own rank, the default, as dask-mpi) or 0 (beside the"
                    + " scheduler, one process fewer) (default: ${DEFAULT-VALUE})")
    public int clientRank;

    /** Where the ranks run (hosts, launcher agent, launcher options). */
    @Mixin
    public MpiPlacementOptions placement = new MpiPlacementOptions();

    @Option(names = "--timeout", defaultValue = "1800",
            description = "seconds before a job that this command runs in other processes is killed (default: ${DEFAULT-VALUE})")
    public long timeoutSeconds;

    /**
     * Fails, as a command-line error of {@code spec}, on an unknown MPI or protocol, a timeout under 1 s or a client
     * rank other than 0 or 1; checked
     * whatever the backend, as a misspelt MPI is a mistake even where it is not used.
     */
    public void check(CommandSpec spec) {
        OptionChecks.mpi(spec, mpi);
        OptionChecks.parsed(spec, "--protocol", protocol, MpiProtocol::parse);
        OptionChecks.atLeast(spec, "--timeout", timeoutSeconds, 1);
        placement.check(spec);
        if (clientRank != 0 && clientRank != 1) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--client-rank must be 0 or 1, not " + clientRank);
        }
    }

    /** The backend label of results over {@code protocol}: {@code mpi}, {@code mpirun-tcp} or {@code mpirun-auto}. */
    public static String label(MpiProtocol protocol) {
        return protocol == MpiProtocol.MPI ? "mpi" : "mpirun-" + protocol.scheme();
    }

    /** The ranks of a job with {@code workers} workers: one fewer when the client shares the scheduler's rank. */
    public int ranks(int workers) {
        return workers + (clientRank == 0 ? 1 : 2);
    }
}
