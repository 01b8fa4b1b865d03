package io.dask4j.launcher;

import io.dask4j.mpi.ExitSignal;
import io.dask4j.runtime.dashboard.DashboardServer;
import io.dask4j.runtime.scheduler.SchedulerSnapshot;
import io.dask4j.runtime.scheduler.WorkerSnapshot;
import io.dask4j.runtime.protocol.SchedulerFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Runs a scheduler or worker rank (a rank without the client) until the cluster shuts down, then stops its
 * roles and finalizes MPI. The shutdown protocol, on the launcher's control communicator:
 * <pre>
 *   client rank ── CLIENT_DONE(code) ──► scheduler rank ── SHUTDOWN ──► every other rank
 *   then each rank closes its worker / scheduler, all ranks meet in a barrier, and MPI_Finalize.
 * </pre>
 * The scheduler rank also takes the client's disconnection as the end (its process may have called
 * System.exit). While waiting, the rank watches its roles: a worker rank whose worker stopped (its
 * scheduler is gone) or a scheduler rank that lost a worker of the job ends the whole job with MPI_Abort
 * and a message saying which rank, never a hang and never a worker that keeps reconnecting. Under {@code
 * dask4j mpi} there is no client: the ranks run until a signal (mpirun forwards SIGTERM and Ctrl-C), or,
 * with {@code --no-scheduler}, until the outside scheduler goes away.
 *
 * <p>The scheduler rank also serves the web dashboard (unless {@link MpiClusterOptions#dashboard()} is
 * disabled) and prints, on standard error, the scheduler's addresses, the dashboard's URL and where the
 * rank logs go.
 *
 * <p>Threads: {@link #serve} on the rank's main thread; an MPI exit task stops the roles on a signal.
 */
final class ServerRank {
    private static final Logger LOG = LoggerFactory.getLogger(ServerRank.class);
    private static final Duration POLL = Duration.ofMillis(200);
    private static final Duration GRACE = Duration.ofSeconds(3);

    private final ClusterRank rank;
    private volatile boolean stopping;
    private volatile DashboardServer dashboard;

    private ServerRank(ClusterRank rank) {
        this.rank = rank;
    }

    /** Serves until shutdown; returns the exit code (0 after a clean shutdown). */
    static int serve(ClusterRank rank) {
        return new ServerRank(rank).run();
    }

    private int run() {
        // Runs at exit before MPI is finalized (a JVM hook of our own would race MPI_Finalize).
        rank.mpi.atExit(this::onSignal);
        if (rank.scheduler != null) {
            announceScheduler();
        }
        RankLayout layout = rank.layout;
        // Who tells this rank to stop: the client rank tells the scheduler rank, which tells the others.
        int signalSource = rank.isScheduler() ? layout.clientRank() : layout.schedulerRank();
        int signalTag = rank.isScheduler() ? ControlChannel.TAG_CLIENT_DONE : ControlChannel.TAG_SHUTDOWN;
        // A lazy poll waits for the engine's next pass, which a sender of this node starts by ringing; a sender on
        // another node cannot ring, and an idle engine may then sleep up to a second: poll it eagerly (5 wake-ups a
        // second, where the engine would otherwise poll MPI a thousand times a second for such a sender).
        boolean sourceRings = signalSource != RankLayout.NONE && rank.hosts.get(signalSource).equals(rank.hosts.get(rank.rank));
        Set<String> expected = layout.workerRanks().stream().map(rank::workerName).collect(Collectors.toCollection(TreeSet::new));
        boolean clientSeen = false;
        int code = 0;
        try {
            while (true) {
                if (signalSource != RankLayout.NONE) {
                    OptionalInt signal = sourceRings ? rank.control.pollLazily(signalSource, signalTag)
                            : rank.control.poll(signalSource, signalTag);
                    if (signal.isPresent()) {
                        code = signal.getAsInt();
                        break;
                    }
                }
                if (stopping) {
                    waitForExit();
                }
                if (rank.worker != null && rank.worker.closed().isDone()) {
                    if (!layout.hasScheduler()) {
                        LOG.warn("the scheduler at {} went away; worker {} stops", rank.schedulerAddress(), rank.workerName(rank.rank));
                        break;
                    }
                    // The scheduler rank says SHUTDOWN before it closes: give that message a moment to arrive.
                    OptionalInt late = rank.control.await(signalSource, signalTag, GRACE.toMillis(), 50);
                    if (late.isEmpty()) {
                        rank.abort("the worker on " + rank.placed(rank.rank) + " stopped: it lost the scheduler ("
                                + rank.placed(layout.schedulerRank()) + ")", null);
                    }
                    code = late.getAsInt();
                    break;
                }
                SchedulerSnapshot now = rank.scheduler != null ? checkWorkers(expected) : null;
                if (now != null) {
                    if (layout.clientRank() != RankLayout.NONE) {
                        if (now.clients() > 0) {
                            clientSeen = true;
                        } else if (clientSeen) {
                            // A client closes before it says CLIENT_DONE: wait for that word before
                            // concluding that its process went away on its own.
                            OptionalInt done = rank.control.await(signalSource, signalTag, GRACE.toMillis(), 50);
                            code = done.orElse(ControlChannel.CLIENT_EXITED);
                            LOG.info("the client (rank {}) disconnected (code {})", layout.clientRank(), code);
                            break;
                        }
                    }
                }
                Thread.sleep(POLL.toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            rank.abort("rank " + rank.rank + " was interrupted while serving", e);
        } catch (RuntimeException e) {
            rank.abort("rank " + rank.rank + " failed while serving: " + e, e);
        }
        return shutDown(code);
    }

    /**
     * The scheduler's part on a rank that also runs the client (dask-mpi's {@code execute()} layout): announces
     * the scheduler and starts a daemon thread that ends the job when a worker of the job is lost, as {@link
     * #serve} does on a scheduler rank of its own. The client rank calls {@link #shutDownBesideClient} at the end.
     */
    static ServerRank besideClient(ClusterRank rank) {
        ServerRank server = new ServerRank(rank);
        server.announceScheduler();
        Set<String> expected = rank.layout.workerRanks().stream().map(rank::workerName).collect(Collectors.toCollection(TreeSet::new));
        Thread.ofPlatform().name("dask4j-worker-watch").daemon(true).start(() -> {
            try {
                while (!server.stopping) {
                    server.checkWorkers(expected);
                    Thread.sleep(POLL.toMillis());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                rank.abort("rank " + rank.rank + " failed while watching its workers: " + e, e);
            }
        });
        return server;
    }

    /**
     * Ends the cluster from the client's own rank: tells every other rank to shut down with the client's
     * {@code code} and stops the scheduler (and this rank's worker, if any). The caller then finishes MPI.
     */
    void shutDownBesideClient(int code) {
        if (stopping) {
            return;
        }
        tellOthersAndStop(code);
    }

    /** The scheduler's state after checking it still has every worker of the job (else the job ends); null if busy. */
    private SchedulerSnapshot checkWorkers(Set<String> expected) {
        SchedulerSnapshot now = snapshot();
        if (now != null && !stopping) {
            List<String> lost = lostWorkers(expected, now);
            if (!lost.isEmpty()) {
                rank.abort("worker " + String.join(", ", lost.stream().map(rank::describeWorker).toList())
                        + " of this job was lost (its process died, or it or its node stopped answering)", null);
            }
        }
        return now;
    }

    private int shutDown(int clientCode) {
        tellOthersAndStop(clientCode);
        return finish(rank, 0, clientCode != ControlChannel.CLIENT_EXITED);
    }

    private void tellOthersAndStop(int clientCode) {
        stopping = true;
        LOG.info("shutting down (client exit code {})", clientCode);
        if (rank.isScheduler()) {
            List<CompletableFuture<Integer>> sent = new ArrayList<>();
            for (int r = 0; r < rank.mpi.size(); r++) {
                if (r != rank.rank) {
                    sent.add(rank.control.send(r, ControlChannel.TAG_SHUTDOWN, clientCode));
                }
            }
            try {
                CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                LOG.warn("could not tell every rank to shut down: {}", e.toString());
            }
        }
        stopRoles();
    }

    /**
     * The job's final barrier (bounded; skipped when the client rank is exiting on its own and will not
     * come) and MPI_Finalize; returns {@code code}.
     */
    static int finish(ClusterRank rank, int code, boolean barrier) {
        if (barrier) {
            try {
                rank.mpi.barrier(Duration.ofSeconds(30));
            } catch (RuntimeException e) {
                LOG.warn("not every rank reached the final barrier: {}", e.getMessage());
            }
        }
        rank.mpi.close();
        LOG.info("rank {} finished (exit code {})", rank.rank, code);
        return code;
    }

    /** Starts the dashboard (a failure to bind is logged, never fatal) and prints where everything is. */
    private void announceScheduler() {
        String url = "off";
        if (rank.options.dashboard().enabled()) {
            try {
                dashboard = DashboardServer.start(rank.scheduler, rank.options.dashboard());
                url = dashboard.url().toString();
            } catch (RuntimeException e) {
                LOG.info("no dashboard: {}", e.getMessage());
                url = "unavailable (" + e.getMessage() + ")";
            }
        }
        Path logs = rank.options.logDirectory();
        String where = logs == null ? "the console" : logs.toAbsolutePath().resolve("rank-<r>.log").toString();
        LOG.info("dashboard: {}", url);
        System.err.println("dask4j: scheduler at " + String.join(", ", rank.scheduler.addresses().stream()
                .map(Object::toString).toList()) + "; dashboard " + url + "; logs in " + where);
        System.err.flush();
    }

    private void stopRoles() {
        DashboardServer board = dashboard;
        if (board != null) {
            board.close();
        }
        if (rank.worker != null) {
            rank.worker.close();
        }
        if (rank.scheduler != null) {
            rank.scheduler.close();
            if (rank.options.schedulerFile() != null) {
                SchedulerFile.delete(rank.options.schedulerFile());
            }
        }
    }

    private void onSignal() {
        if (stopping) {
            return;
        }
        stopping = true;
        LOG.warn("rank {} stopped by {}; stopping its {}", rank.rank, ExitSignal.current().orElse("a signal"),
                rank.layout.label(rank.rank));
        BoundedStop.run("stopping rank " + rank.rank + "'s " + rank.layout.label(rank.rank), this::stopRoles,
                BoundedStop.AFTER_SIGNAL);
    }

    /** The scheduler's state, or null if its event loop is too busy to answer now (checked again later). */
    private SchedulerSnapshot snapshot() {
        try {
            return rank.scheduler.snapshot();
        } catch (IllegalStateException busy) {
            LOG.debug("no scheduler snapshot this time", busy);
            return null;
        }
    }

    /** A signal is stopping this process: its shutdown hooks finish the work, this thread only waits. */
    private static void waitForExit() {
        while (true) {
            try {
                Thread.sleep(Long.MAX_VALUE);
            } catch (InterruptedException e) {
                // the JVM is exiting; keep waiting for it
            }
        }
    }

    private static List<String> lostWorkers(Set<String> expected, SchedulerSnapshot now) {
        Set<String> present = now.workers().stream().map(WorkerSnapshot::name).collect(Collectors.toSet());
        return expected.stream().filter(name -> !present.contains(name)).toList();
    }
}
