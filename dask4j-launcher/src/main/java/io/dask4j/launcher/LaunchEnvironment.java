package io.dask4j.launcher;

import java.util.Map;
import java.util.OptionalInt;

/**
 * What the process launcher told this rank through its environment, read before MPI starts (so that the
 * rank's log file can be opened first) and checked against MPI afterwards. Known launchers, in the order
 * they are looked for:
 * <ul>
 *   <li>Open MPI's {@code mpirun}/{@code orterun}/{@code prterun}: {@code OMPI_COMM_WORLD_RANK},
 *       {@code OMPI_COMM_WORLD_SIZE};</li>
 *   <li>MPICH's Hydra ({@code mpiexec}, {@code mpirun.mpich}) and other PMI-1/PMI-2 launchers:
 *       {@code PMI_RANK}, {@code PMI_SIZE};</li>
 *   <li>PMIx launchers ({@code srun --mpi=pmix}, {@code prterun}): {@code PMIX_RANK} (size from
 *       Slurm's variables when present);</li>
 *   <li>Slurm's {@code srun}: {@code SLURM_PROCID}, {@code SLURM_STEP_NUM_TASKS} or {@code SLURM_NTASKS}.
 *       An MPI launcher's variables win, since a batch script's own environment also has Slurm's.</li>
 * </ul>
 * Immutable and thread-safe.
 *
 * @param launcher a readable name of the launcher found, {@code "none"} for a process started alone
 * @param source the variable the rank was read from, or empty
 * @param rank the rank the launcher gave this process, if it said
 * @param size the number of processes it started, if it said
 * @param authoritative whether the launcher is an MPI launcher whose size must match MPI's (Slurm's batch
 *     variables may describe the allocation rather than this job, so they only earn a warning)
 */
public record LaunchEnvironment(String launcher, String source, OptionalInt rank, OptionalInt size, boolean authoritative) {

    /** Reads this process's environment. */
    public static LaunchEnvironment detect() {
        return detect(System.getenv());
    }

    public static LaunchEnvironment detect(Map<String, String> env) {
        if (env.containsKey("OMPI_COMM_WORLD_RANK")) {
            return new LaunchEnvironment("Open MPI (mpirun)", "OMPI_COMM_WORLD_RANK", number(env, "OMPI_COMM_WORLD_RANK"),
                    number(env, "OMPI_COMM_WORLD_SIZE"), true);
        }
        if (env.containsKey("PMI_RANK")) {
            boolean slurm = env.containsKey("SLURM_PROCID");
            return new LaunchEnvironment(slurm ? "Slurm srun with PMI" : "Hydra/PMI (mpiexec)", "PMI_RANK",
                    number(env, "PMI_RANK"), number(env, "PMI_SIZE"), true);
        }
        if (env.containsKey("PMIX_RANK")) {
            boolean slurm = env.containsKey("SLURM_PROCID");
            return new LaunchEnvironment(slurm ? "Slurm srun with PMIx" : "PMIx", "PMIX_RANK", number(env, "PMIX_RANK"),
                    slurmSize(env), false);
        }
        if (env.containsKey("SLURM_PROCID")) {
            return new LaunchEnvironment("Slurm (srun)", "SLURM_PROCID", number(env, "SLURM_PROCID"), slurmSize(env), false);
        }
        return new LaunchEnvironment("none", "", OptionalInt.empty(), OptionalInt.empty(), false);
    }

    /** This rank for naming its log file before MPI starts: the launcher's rank, else 0. */
    public int rankOrZero() {
        return rank.orElse(0);
    }

    /**
     * Checks MPI's view of the job against the launcher's. Returns a warning to log (or null), or throws
     * when an MPI launcher started more processes than MPI sees: the binding loaded another MPI than the
     * launcher's, and every rank would believe it is alone.
     */
    public String check(int mpiRank, int mpiSize, String library) {
        if (size.isEmpty() || size.getAsInt() == mpiSize) {
            return null;
        }
        String text = launcher + " says " + size.getAsInt() + " ranks but MPI (" + library + ") sees " + mpiSize;
        if (authoritative && mpiSize == 1) {
            throw new LauncherException(text + ": dask4j loaded a different MPI library than the launcher's. Use the"
                    + " mpirun of that library, or name the launcher's library with DASK4J_MPI_LIB (libmpi.so.40 for"
                    + " Open MPI, libmpich.so.12 for MPICH).");
        }
        return text + " (rank " + mpiRank + "); going by MPI";
    }

    private static OptionalInt slurmSize(Map<String, String> env) {
        OptionalInt step = number(env, "SLURM_STEP_NUM_TASKS");
        return step.isPresent() ? step : number(env, "SLURM_NTASKS");
    }

    private static OptionalInt number(Map<String, String> env, String name) {
        String value = env.get(name);
        if (value == null || !value.strip().matches("\\d{1,9}")) {
            return OptionalInt.empty();
        }
        return OptionalInt.of(Integer.parseInt(value.strip()));
    }
}
