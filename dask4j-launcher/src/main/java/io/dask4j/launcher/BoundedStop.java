package io.dask4j.launcher;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;

/**
 * Runs a stop action on a daemon thread and waits for it at most a bound. For the signal path only: when the
 * launcher stops a job (mpirun's or Slurm's SIGTERM after a rank died), closing a comm to the dead rank would wait
 * for sends that never complete, and the launcher kills whatever is still running after its own grace period
 * (Slurm's KillWait, 30 s by default), so a rank must leave well within it rather than flush politely.
 *
 * <p>Stateless; any thread.
 */
final class BoundedStop {
    private static final Logger LOG = LoggerFactory.getLogger(BoundedStop.class);

    /** How long a rank stopped by a signal lets its roles close before it goes on to leave MPI. */
    static final Duration AFTER_SIGNAL = Duration.ofSeconds(3);

    private BoundedStop() {
    }

    /** Runs {@code action}; returns true if it finished within {@code bound}, else leaves it running and returns false. */
    static boolean run(String what, Runnable action, Duration bound) {
        Thread stopper = Thread.ofPlatform().daemon(true).name("dask4j-stop").start(() -> {
            try {
                action.run();
            } catch (RuntimeException e) {
                LOG.debug("{} failed", what, e);
            }
        });
        try {
            stopper.join(bound);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (stopper.isAlive()) {
            LOG.warn("{} did not finish within {} ms; leaving without it", what, bound.toMillis());
            return false;
        }
        return true;
    }
}
