package io.dask4j.runtime.scheduler;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Chooses a worker for each ready task during one round of assignment:
 * the worker holding the most bytes of the task's inputs, then the least occupied (processing tasks per
 * thread). Tasks without inputs that arrive in bulk are handed out in contiguous blocks sized by each
 * worker's thread count, so that siblings (which later reduce together) land on the same worker, as Dask's
 * root-task co-assignment does. Event-loop thread only.
 */
final class Placement {
    private final List<WorkerState> workers;
    private final int[] rootQuota;
    private int rootCursor;

    Placement(Collection<WorkerState> all, int readyCount) {
        this.workers = new ArrayList<>(all);
        this.workers.sort((a, b) -> Double.compare(a.occupancy(), b.occupancy()));
        int threads = 0;
        for (WorkerState w : workers) {
            threads += w.nthreads;
        }
        rootQuota = new int[workers.size()];
        if (readyCount > threads) {
            for (int i = 0; i < rootQuota.length; i++) {
                rootQuota[i] = (int) Math.ceil((double) readyCount * workers.get(i).nthreads / threads);
            }
        }
    }

    WorkerState choose(TaskState t) {
        if (t.deps.length == 0) {
            while (rootCursor < rootQuota.length) {
                if (rootQuota[rootCursor] > 0) {
                    rootQuota[rootCursor]--;
                    return workers.get(rootCursor);
                }
                rootCursor++;
            }
            return leastOccupied();
        }
        WorkerState best = t.deps.length > 16 ? byBytesMap(t) : byBytesScan(t);
        return best != null ? best : leastOccupied();
    }

    private WorkerState leastOccupied() {
        WorkerState best = null;
        double bestOcc = Double.MAX_VALUE;
        for (WorkerState w : workers) {
            double occ = w.occupancy();
            if (occ < bestOcc) {
                best = w;
                bestOcc = occ;
            }
        }
        return best;
    }

    private WorkerState byBytesScan(TaskState t) {
        WorkerState best = null;
        long bestBytes = -1;
        for (TaskState d : t.deps) {
            for (WorkerState candidate : d.holders) {
                if (!candidate.alive) {
                    continue;
                }
                long bytes = 0;
                for (TaskState e : t.deps) {
                    if (e.holders.contains(candidate)) {
                        bytes += e.nbytes + 1;
                    }
                }
                if (bytes > bestBytes || (bytes == bestBytes && candidate.occupancy() < best.occupancy())) {
                    best = candidate;
                    bestBytes = bytes;
                }
            }
        }
        return best;
    }

    private WorkerState byBytesMap(TaskState t) {
        Map<WorkerState, Long> bytes = new HashMap<>();
        for (TaskState d : t.deps) {
            for (WorkerState h : d.holders) {
                if (h.alive) {
                    bytes.merge(h, d.nbytes + 1, Long::sum);
                }
            }
        }
        WorkerState best = null;
        long bestBytes = -1;
        for (Map.Entry<WorkerState, Long> e : bytes.entrySet()) {
            WorkerState w = e.getKey();
            if (e.getValue() > bestBytes || (e.getValue() == bestBytes && w.occupancy() < best.occupancy())) {
                best = w;
                bestBytes = e.getValue();
            }
        }
        return best;
    }
}
