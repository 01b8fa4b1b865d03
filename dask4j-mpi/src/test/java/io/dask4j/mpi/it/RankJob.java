package io.dask4j.mpi.it;

import io.dask4j.comm.Address;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.Comms;
import io.dask4j.comm.Listener;
import io.dask4j.mpi.MpiRuntime;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

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

    /** What one rank does with its listener running: {@code accepted} gets the comms peers open to it. */
    interface ListeningBody {
        void run(CommOptions options, BlockingQueue<Comm> accepted) throws Exception;
    }

    private RankJob() {
    }

    /**
     * {@link #run} with a listener at {@code mpi://rank}: every rank listens, meets the others at a barrier (so
     * that every listener is up before anyone connects), runs {@code body}, then stops listening. The body ends
     * with whatever barrier its ranks need before the listeners go.
     */
    static void listening(MpiRuntime mpi, ListeningBody body) {
        int rank = mpi.rank();
        CommOptions options = options(rank);
        BlockingQueue<Comm> accepted = new LinkedBlockingQueue<>();
        run(mpi, () -> {
            Listener listener = Comms.listen(Address.mpi(rank), options, accepted::add);
            mpi.barrier();
            body.run(options, accepted);
            listener.stop();
        });
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
