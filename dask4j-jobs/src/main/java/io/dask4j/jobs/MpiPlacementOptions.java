package io.dask4j.jobs;

import io.dask4j.mpi.launch.MpiLaunchers;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Where the ranks of a benchmark's {@code mpirun} job run, for {@code bench seed}, {@code bench tasks} and {@code
 * bench comm --backend mpi} on several nodes: the hosts and their slots ({@code --hosts node1:3,node2:2}, ranks
 * filled in that order), the program the launcher logs in to them with, and any other launcher option (the network
 * to use, for instance). Without them the job runs where the launcher's own environment says (one host, or
 * Open MPI's {@code OMPI_MCA_*} variables, or a Slurm allocation). A picocli mixin: set on the command's thread,
 * read after parsing.
 */
public final class MpiPlacementOptions {
    private static final Pattern HOSTS = Pattern.compile("[^,:\\s]+(:\\d+)?(,[^,:\\s]+(:\\d+)?)*");

    @Option(names = "--hosts", paramLabel = "HOST[:SLOTS],...",
            description = "mpi backend: the hosts of the ranks and how many on each, e.g. node1:3,node2:2 (mpirun's --host, "
                    + "MPICH's -hosts); default: the launcher's")
    public String hosts;

    @Option(names = "--launcher-agent", paramLabel = "PROGRAM",
            description = "mpi backend: the ssh-like program the launcher starts remote ranks with (Open MPI's "
                    + "--mca plm_rsh_agent, MPICH's -launcher ssh -launcher-exec); default: ssh")
    public String agent;

    @Option(names = "--launcher-arg", paramLabel = "ARG",
            description = "mpi backend: an argument for mpirun itself, in order, repeatable (e.g. --launcher-arg=--mca "
                    + "--launcher-arg=btl_tcp_if_include --launcher-arg=10.0.0.0/24, or --launcher-arg=-iface --launcher-arg=ib0)")
    public List<String> launcherArgs = new ArrayList<>();

    /** Fails, as a command-line error of {@code spec}, on a host list that is not {@code host[:slots],...}. */
    public void check(CommandSpec spec) {
        if (hosts != null && !HOSTS.matcher(hosts).matches()) {
            throw new ParameterException(spec.commandLine(), "--hosts must be HOST[:SLOTS],... (e.g. node1:3,node2:2), not '" + hosts + "'");
        }
    }

    /**
     * The launcher options that place the ranks, for {@code mpi} ({@code openmpi} or {@code mpich}), to go before
     * the job's {@code -np}; empty when nothing was asked.
     */
    public List<String> launcherOptions(String mpi) {
        boolean openMpi = MpiLaunchers.kind(mpi).equals("openmpi");
        List<String> line = new ArrayList<>();
        if (agent != null) {
            line.addAll(openMpi ? List.of("--mca", "plm_rsh_agent", agent) : List.of("-launcher", "ssh", "-launcher-exec", agent));
        }
        if (hosts != null) {
            line.addAll(List.of(openMpi ? "--host" : "-hosts", hosts));
        }
        line.addAll(launcherArgs);
        return line;
    }
}
