package io.dask4j.launcher;

import io.dask4j.mpi.ExitSignal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.TimeUnit;

/**
 * The client rank after {@link MpiCluster#initialize} returned: watches the thread that called it (the
 * user's main thread), and when that thread ends, or {@link #shutdown} is called, shuts the cluster down:
 * closes the client, sends CLIENT_DONE to the scheduler rank, waits for its SHUTDOWN, stops this rank's
 * worker if it has one, meets the other ranks in the final barrier and finalizes MPI. If the main thread
 * ended with an exception, it is printed once (here, on the client rank only) and the process exits 1; if a
 * signal stopped the rank (mpirun stops every rank that way when one dies), closing the client under the
 * program, one line says so instead.
 *
 * <p>When the client shares the scheduler's rank (dask-mpi's {@code execute()} layout) there is no one to
 * tell: this rank runs the scheduler's part of the protocol itself (SHUTDOWN to every other rank, the
 * scheduler closed) through {@link ServerRank#besideClient}.
 *
 * <p>A non-daemon watcher thread makes the process wait for the shutdown even if the user left other
 * non-daemon threads running (no rank outlives the client) and then exits with the client's code. An MPI
 * exit task ({@link io.dask4j.mpi.MpiRuntime#atExit}) covers a main() that calls {@code System.exit} itself:
 * it only tells the scheduler rank, and runs before the MPI runtime finalizes MPI (a JVM shutdown hook of
 * our own would race MPI_Finalize).
 *
 * <p>Threads: {@link #shutdown} from any thread, once effective; the rest is internal.
 */
final class ClientRank {
    private static final Logger LOG = LoggerFactory.getLogger(ClientRank.class);

    private final ClusterRank rank;
    /** The scheduler's side of this process when the client runs on the scheduler rank; null otherwise. */
    private final ServerRank beside;
    private volatile Throwable failure;
    /** The signal that is stopping this rank ({@code "SIGTERM"}), once the exit task has seen one. */
    private volatile String stoppedBy;
    private boolean done;

    ClientRank(ClusterRank rank) {
        this.rank = rank;
        this.beside = rank.layout.clientBesideScheduler() ? ServerRank.besideClient(rank) : null;
    }

    ClusterRank cluster() {
        return rank;
    }

    /** Watches {@code main} (the thread that will run the user's code) and registers the exit hook. */
    void watch(Thread main) {
        Thread.UncaughtExceptionHandler previous = main.getUncaughtExceptionHandler();
        main.setUncaughtExceptionHandler((thread, error) -> {
            failure = error;
            String signal = stoppedBy;
            if (signal != null) {
                // The program did not fail: the signal closed its client under it, and this is the consequence.
                System.err.println("dask4j: the client program on rank " + rank.rank + " was stopped by " + signal
                        + " (it ended with " + error + ")");
                LOG.info("the client program ended after {}", signal, error);
                return;
            }
            System.err.println("dask4j: the client program failed on rank " + rank.rank + ":");
            error.printStackTrace();
            // Printed above once; the file gets it at INFO so that the console does not show it twice.
            LOG.info("the client program failed", error);
            if (previous != null && previous != thread.getThreadGroup()) {
                previous.uncaughtException(thread, error);
            }
        });
        Thread.ofPlatform().name("dask4j-client-watch").daemon(false).start(() -> {
            try {
                main.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            int code = failure == null ? 0 : 1;
            shutdown(code);
            RankLogging.stop();
            System.exit(code);
        });
        rank.mpi.atExit(this::onExit);
    }

    /** Shuts the whole cluster down (once); {@code code} is this client's exit code, told to the scheduler. */
    synchronized void shutdown(int code) {
        if (done) {
            return;
        }
        done = true;
        LOG.info("client done (exit code {}); shutting the cluster down", code);
        if (stoppedBy != null) {
            BoundedStop.run("closing rank " + rank.rank + "'s client", this::closeClient, BoundedStop.AFTER_SIGNAL);
        } else {
            closeClient();
        }
        if (beside != null) {
            beside.shutDownBesideClient(code);
            ServerRank.finish(rank, code, true);
            return;
        }
        try {
            rank.control.send(rank.layout.schedulerRank(), ControlChannel.TAG_CLIENT_DONE, code).get(10, TimeUnit.SECONDS);
            if (rank.control.await(rank.layout.schedulerRank(), ControlChannel.TAG_SHUTDOWN, 60_000, 20).isEmpty()) {
                LOG.warn("the scheduler rank did not confirm the shutdown within 60 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.warn("the scheduler rank did not confirm the shutdown: {}", e.toString());
        }
        if (rank.worker != null) {
            rank.worker.close();
        }
        ServerRank.finish(rank, code, true);
    }

    synchronized boolean isShutDown() {
        return done;
    }

    private void closeClient() {
        try {
            rank.client.close();
        } catch (RuntimeException e) {
            LOG.warn("closing the client failed: {}", e.toString());
        }
    }

    private void onExit() {
        synchronized (this) {
            if (done) {
                return;
            }
            done = true;
        }
        stoppedBy = ExitSignal.current().orElse(null);
        if (stoppedBy != null) {
            // mpirun stops every rank this way when one of them dies; its own message names the rank that did.
            LOG.warn("rank {} stopped by {}; closing the client and telling the scheduler rank", rank.rank, stoppedBy);
        } else {
            LOG.warn("the client program exited without returning from main; telling the scheduler rank");
        }
        stop("closing rank " + rank.rank + "'s client", this::closeClient);
        if (beside != null) {
            stop("stopping rank " + rank.rank + "'s scheduler", () -> beside.shutDownBesideClient(ControlChannel.CLIENT_EXITED));
            return;
        }
        try {
            rank.control.send(rank.layout.schedulerRank(), ControlChannel.TAG_CLIENT_DONE, ControlChannel.CLIENT_EXITED)
                    .get(2, TimeUnit.SECONDS);
        } catch (Exception e) {
            LOG.debug("could not tell the scheduler rank", e);
        }
    }

    /** Runs a stop action, bounded when a signal is ending the job (the launcher kills what lingers). */
    private void stop(String what, Runnable action) {
        if (stoppedBy != null) {
            BoundedStop.run(what, action, BoundedStop.AFTER_SIGNAL);
        } else {
            action.run();
        }
    }
}
