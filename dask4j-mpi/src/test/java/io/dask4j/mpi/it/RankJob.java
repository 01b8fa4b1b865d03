package io.dask4j.mpi.it;

import io.dask4j.comm.CommOptions;
import io.dask4j.mpi.MpiRuntime;

import java.time.Duration;
import java.util.Map;

/**
 * The frame of a test program that runs in every rank of an mpirun job: runs the rank's checks, prints
 * {@code RANK r OK} and finalizes MPI, or prints {@code RANK r FAILED} with the stack trace and exits 1, so
 * that the JUnit side can assert on the job's output and exit code.
 */
final class RankJob {

    /** What one rank does; throws on any failed check. */
    interface Body {
        void run() throws Exception;
    }

    private RankJob() {
    }

    static void run(MpiRuntime mpi, Body body) {
        int rank = mpi.rank();
        try {
            body.run();
            System.out.println("RANK " + rank + " OK");
        } catch (Throwable t) {
            System.out.println("RANK " + rank + " FAILED: " + t);
            t.printStackTrace(System.out);
            System.out.flush();
            mpi.close();
            System.exit(1);
        }
        mpi.close();
    }

    /** Comm options of a test rank: no secret, named after the rank, a connect timeout for slow job starts. */
    static CommOptions options(int rank) {
        return CommOptions.fromEnvironment(Map.of()).withIdentity("rank-" + rank).withConnectTimeout(Duration.ofSeconds(20));
    }

    static void check(boolean condition, String what) {
        if (!condition) {
            throw new AssertionError("check failed: " + what);
        }
    }
}
