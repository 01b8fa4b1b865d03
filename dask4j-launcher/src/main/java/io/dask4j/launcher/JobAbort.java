package io.dask4j.launcher;

import io.dask4j.mpi.MpiRuntime;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.TimeUnit;

/**
 * Ends the whole MPI job from one rank that cannot go on (a worker rank lost, start-up failed on this
 * rank only): logs the reason as an error (so the console shows it once, from this rank), flushes the
 * log, and calls MPI_Abort, which makes the launcher kill every rank. A watchdog halts this process if
 * MPI_Abort does not return nor kill it within 10 s, so that nothing hangs. Any platform thread.
 */
final class JobAbort {
    private static final Logger LOG = LoggerFactory.getLogger(JobAbort.class);
    static final int EXIT_CODE = 1;

    private JobAbort() {
    }

    static void abort(MpiRuntime mpi, int rank, String message, Throwable cause) {
        if (cause != null) {
            LOG.debug("cause", cause);
        }
        LOG.error("{}; ending the MPI job (MPI_Abort from rank {})", message, rank);
        RankLogging.stop();
        Thread.ofPlatform().daemon(true).name("dask4j-abort-watchdog").start(() -> {
            try {
                TimeUnit.SECONDS.sleep(10);
            } catch (InterruptedException ignored) {
                // halting anyway
            }
            Runtime.getRuntime().halt(EXIT_CODE);
        });
        try {
            mpi.engine().exclusive(() -> {
                mpi.abortJob(EXIT_CODE);
                return null;
            });
        } catch (RuntimeException e) {
            System.err.println("dask4j: MPI_Abort failed (" + e.getMessage() + "); halting rank " + rank);
        }
        Runtime.getRuntime().halt(EXIT_CODE);
    }
}
