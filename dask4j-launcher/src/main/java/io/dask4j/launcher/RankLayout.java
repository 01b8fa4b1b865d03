package io.dask4j.launcher;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Which rank does what in a job of {@code size} ranks: the scheduler on {@code schedulerRank} (none with
 * {@link #NONE}, as for {@code dask4j mpi --no-scheduler}), the client on {@code clientRank} (none with
 * {@link #NONE}, as for {@code dask4j mpi}; the scheduler's own rank is allowed, as dask-mpi's {@code
 * execute()}: the scheduler then runs beside the user's code in one process), workers on every other rank;
 * with {@code exclusiveWorkers}
 * false, the scheduler and client ranks run a worker too. Pure and immutable: every rank computes the
 * same layout from the same inputs, so a bad layout fails alike everywhere with no message exchanged.
 *
 * @throws LayoutException (from the constructor) when the job has too few ranks or the ranks clash
 */
public record RankLayout(int size, int schedulerRank, int clientRank, boolean exclusiveWorkers) {

    /** No rank has this role. */
    public static final int NONE = -1;

    public RankLayout {
        if (size < 1) {
            throw new LayoutException("an MPI job has at least 1 rank, not " + size);
        }
        if (schedulerRank < NONE || clientRank < NONE) {
            throw new LayoutException("ranks are >= 0 (or -1 for none): scheduler " + schedulerRank + ", client " + clientRank);
        }
        int needed = minimumSize(schedulerRank, clientRank, exclusiveWorkers);
        if (size < needed) {
            throw new LayoutException("too few MPI ranks: this job has " + size + ", the layout needs at least " + needed
                    + " (" + describe(schedulerRank, clientRank, exclusiveWorkers) + "). Start it with mpirun -np " + needed
                    + " or more.");
        }
    }

    /** The fewest ranks that fit the roles: every named rank exists and at least one rank runs a worker. */
    public static int minimumSize(int schedulerRank, int clientRank, boolean exclusiveWorkers) {
        int highest = Math.max(schedulerRank, clientRank) + 1;
        if (!exclusiveWorkers) {
            return Math.max(1, highest);
        }
        int special = (schedulerRank != NONE ? 1 : 0) + (clientRank != NONE && clientRank != schedulerRank ? 1 : 0);
        return Math.max(highest, special + 1);
    }

    /** The roles of {@code rank}, never empty. */
    public Set<Role> roles(int rank) {
        if (rank < 0 || rank >= size) {
            throw new IllegalArgumentException("no rank " + rank + " in a job of " + size);
        }
        EnumSet<Role> roles = EnumSet.noneOf(Role.class);
        if (rank == schedulerRank) {
            roles.add(Role.SCHEDULER);
        }
        if (rank == clientRank) {
            roles.add(Role.CLIENT);
        }
        if (roles.isEmpty() || !exclusiveWorkers) {
            roles.add(Role.WORKER);
        }
        return roles;
    }

    /** The ranks that run a worker, in order. */
    public List<Integer> workerRanks() {
        List<Integer> out = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            if (roles(r).contains(Role.WORKER)) {
                out.add(r);
            }
        }
        return out;
    }

    public boolean hasScheduler() {
        return schedulerRank != NONE;
    }

    /** True when the client runs in the scheduler's process (dask-mpi's {@code execute()} layout). */
    public boolean clientBesideScheduler() {
        return schedulerRank != NONE && clientRank == schedulerRank;
    }

    /** Roles of a rank as written in logs, e.g. {@code scheduler+worker}. */
    public String label(int rank) {
        return roles(rank).stream().map(Role::label).collect(Collectors.joining("+"));
    }

    private static String describe(int schedulerRank, int clientRank, boolean exclusiveWorkers) {
        List<String> parts = new ArrayList<>();
        if (schedulerRank != NONE && schedulerRank == clientRank) {
            parts.add("scheduler and client on rank " + schedulerRank);
        } else if (schedulerRank != NONE) {
            parts.add("scheduler on rank " + schedulerRank);
        }
        if (clientRank != NONE && clientRank != schedulerRank) {
            parts.add("client on rank " + clientRank);
        }
        parts.add(exclusiveWorkers ? "workers on the other ranks, at least one" : "a worker on every rank");
        return String.join(", ", parts);
    }
}
