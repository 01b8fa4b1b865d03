package io.dask4j.mpi.launch;

import io.dask4j.comm.config.Settings;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The one builder of {@code mpirun} and {@code srun} command lines: the demo, the benchmarks and the tests' MPI
 * jobs all start their ranks through it, so that an MPI's quirks (root, oversubscription, single copy, which
 * library the ranks load) are handled in one place. Immutable; any thread.
 *
 * <p>Use: {@code MpiCommandLine.mpirun("openmpi").ranks(5)} gives {@code mpirun ... -np 5}, to which the caller
 * appends the rank's program ({@code JvmFlags.javaCommand(...)}); {@link #launcherOptions(int)} gives the launcher
 * and its global options alone, for jobs of several application contexts ({@code -np 1 java A : -np 4 java B}).
 *
 * @param kind {@code openmpi} or {@code mpich}
 * @param launcher the program that starts the job ({@code mpirun.openmpi}, or a site's {@code /opt/.../mpirun})
 * @param singleCopy Open MPI's single-copy choice between ranks of a node
 * @param nameLibrary whether to tell the ranks which MPI library to load ({@code DASK4J_MPI_LIB}) when the launcher's
 *     is known; off when the caller sets that variable itself
 * @param cores the cores of this machine, for {@link SingleCopy#AUTO}
 */
public record MpiCommandLine(String kind, String launcher, SingleCopy singleCopy, boolean nameLibrary, int cores) {

    /** Open MPI's single-copy mechanism between ranks of one node ({@code btl_vader_single_copy_mechanism}). */
    public enum SingleCopy {
        /**
         * None (copy-in/copy-out) when there is a core per rank, Open MPI's default (CMA) when ranks outnumber
         * cores. The copy-in/copy-out pipeline moves large messages faster on small machines, but needs sender
         * and receiver on a core at the same time: with more ranks than cores a rank waiting for a descheduled
         * peer spins, while with CMA the receiver copies alone (docs/tuning.md).
         */
        AUTO,
        /** Copy-in/copy-out always: works in any container (CMA needs ptrace rights between the ranks). */
        NONE,
        /** Whatever Open MPI chooses (CMA where it can), as a user's own mpirun has it. */
        MPI_DEFAULT
    }

    public MpiCommandLine {
        kind = MpiLaunchers.kind(kind);
        Objects.requireNonNull(launcher, "launcher");
        Objects.requireNonNull(singleCopy, "singleCopy");
    }

    /**
     * The launcher of {@code mpi} ({@code openmpi} or {@code mpich}, any case) as {@link MpiLaunchers#find} finds
     * it, with {@link SingleCopy#AUTO}, naming the library. None installed: the Debian name, so that the job fails
     * to start with the name of the program it lacks.
     *
     * @throws IllegalArgumentException for another {@code mpi}
     */
    public static MpiCommandLine mpirun(String mpi) {
        String kind = MpiLaunchers.kind(mpi);
        String launcher = Objects.requireNonNullElse(MpiLaunchers.find(kind), MpiLaunchers.debianName(kind));
        return new MpiCommandLine(kind, launcher, SingleCopy.AUTO, true, Runtime.getRuntime().availableProcessors());
    }

    public MpiCommandLine withSingleCopy(SingleCopy choice) {
        return new MpiCommandLine(kind, launcher, choice, nameLibrary, cores);
    }

    public MpiCommandLine withoutLibrary() {
        return new MpiCommandLine(kind, launcher, singleCopy, false, cores);
    }

    public MpiCommandLine withCores(int count) {
        return new MpiCommandLine(kind, launcher, singleCopy, nameLibrary, count);
    }

    /** The launcher and its global options for a job of {@code ranks} ranks, without any program. */
    public List<String> launcherOptions(int ranks) {
        // Debian installs both MPIs side by side, so its launchers name their library for the ranks. A plain
        // launcher names the library installed beside it, if any; else the ranks find theirs by the launcher's
        // environment (MpiLibrary.candidates).
        String library = !nameLibrary ? null
                : launcher.equals(MpiLaunchers.debianName(kind)) ? MpiLaunchers.sonames(kind).getFirst()
                : MpiLaunchers.libraryBeside(kind, launcher);
        List<String> line = new ArrayList<>(List.of(launcher));
        if (kind.equals("openmpi")) {
            line.addAll(List.of("--allow-run-as-root", "--oversubscribe"));
            if (singleCopy == SingleCopy.NONE || singleCopy == SingleCopy.AUTO && ranks <= cores) {
                line.addAll(List.of("--mca", "btl_vader_single_copy_mechanism", "none"));
            }
            if (library != null) {
                line.addAll(List.of("-x", "DASK4J_MPI_LIB=" + library));
            }
        } else if (library != null) {
            line.addAll(List.of("-genv", Settings.MPI_LIB_ENV.name(), library));
        }
        return line;
    }

    /** {@link #launcherOptions(int)} then {@code -np ranks}: the caller appends the ranks' program. */
    public List<String> ranks(int ranks) {
        return ranks(ranks, List.of());
    }

    /**
     * {@link #launcherOptions(int)}, then {@code placement} (launcher options such as hosts or an rsh agent),
     * then {@code -np ranks}: the caller appends the ranks' program.
     */
    public List<String> ranks(int ranks, List<String> placement) {
        List<String> line = launcherOptions(ranks);
        line.addAll(placement);
        line.addAll(List.of("-np", Integer.toString(ranks)));
        return line;
    }

    /**
     * One Slurm job step of {@code ranks} tasks through the PMI plugin {@code pmi} ({@code pmix} for Open MPI,
     * {@code pmi2} for MPICH); the caller appends the ranks' program. {@code --kill-on-bad-exit=1} ends the step
     * when a rank dies: with PMI-2 Slurm would otherwise leave the others running until the scheduler rank misses
     * the dead worker's heartbeats.
     */
    public static List<String> srun(String pmi, int ranks) {
        return new ArrayList<>(List.of("srun", "--mpi=" + pmi, "--kill-on-bad-exit=1", "--ntasks=" + ranks, "--oversubscribe"));
    }
}
