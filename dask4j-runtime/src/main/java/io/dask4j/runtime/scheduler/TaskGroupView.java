package io.dask4j.runtime.scheduler;

/**
 * One task group (tasks whose keys share a prefix, as Dask groups them) at a {@link ClusterView}.
 * Immutable.
 *
 * @param total tasks ever created in the group
 * @param completed tasks that finished successfully (whether still in memory or released since)
 * @param erred tasks that ever erred
 * @param waiting tasks waiting for inputs or a worker now
 * @param inMemory results held by workers now
 * @param released tasks released but not forgotten (kept because a dependent may recompute them)
 * @param erredNow erred tasks still known to the scheduler
 * @param computeSeconds time workers spent running the group's tasks
 */
public record TaskGroupView(String name, long total, long completed, long erred, int waiting, int processing,
                            int inMemory, int released, int erredNow, long bytesInMemory, double computeSeconds) {
}
