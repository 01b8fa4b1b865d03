package io.dask4j.launcher.it;

import io.dask4j.launcher.MpiCluster;
import io.dask4j.launcher.MpiClusterOptions;
import io.dask4j.launcher.MpiProtocol;
import io.dask4j.mpi.MpiRuntime;
import io.dask4j.runtime.client.Client;
import io.dask4j.runtime.client.DaskFuture;

import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.IntStream;

/**
 * A user program for the launcher's MPI job tests: {@code RolesMain MODE PROTOCOL LOGDIR} (the protocol is
 * not last: Open MPI 4.1's mpirun crashes when a java command line ends with the word {@code tcp}). Every mode
 * computes squares on the workers, prints {@code RESULT <sum>} and {@code TASK RANKS [<ranks that ran
 * tasks>]} from the client rank, then: {@code ok} returns from main, {@code throw} throws, {@code
 * execute} uses {@link MpiCluster#execute}, {@code shared} puts workers on the scheduler and client ranks too, {@code beside} runs the client on
 * the scheduler's rank (dask-mpi's execute() layout), {@code exit} calls System.exit(3), {@code wait} prints {@code WAITING} and sleeps (for a test
 * that kills a worker rank), {@code wait-on-task} prints {@code WAITING} and waits for a task that sleeps.
 */
public final class RolesMain {
    private RolesMain() {
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        MpiClusterOptions options = MpiClusterOptions.defaults().withLogDirectory(Path.of(args[2]))
                .withProtocol(MpiProtocol.parse(args[1])).withThreads(2);
        if (mode.equals("shared")) {
            options = options.withExclusiveWorkers(false);
        }
        if (mode.equals("beside")) {
            options = options.withClientRank(0);
        }
        if (mode.equals("execute")) {
            long sum = MpiCluster.execute(options, RolesMain::compute);
            System.out.println("EXECUTE RETURNED " + sum);
            return;
        }
        Client client = MpiCluster.initialize(options);
        System.out.println("CLIENT rank=" + MpiCluster.rank() + " size=" + MpiCluster.size() + " roles=" + MpiCluster.roles()
                + " workers=" + MpiCluster.workerRanks() + " scheduler=" + MpiCluster.schedulerAddresses());
        compute(client);
        switch (mode) {
            case "throw" -> throw new IllegalStateException("boom from the client program");
            case "exit" -> System.exit(3);
            case "wait" -> {
                System.out.println("WAITING");
                Thread.sleep(120_000);
            }
            case "wait-on-task" -> {
                DaskFuture<Integer> slow = client.submit(() -> {
                    java.util.concurrent.locks.LockSupport.parkNanos(120_000_000_000L);
                    return 0;
                });
                System.out.println("WAITING");
                slow.result();
            }
            default -> { }
        }
    }

    private static long compute(Client client) {
        List<DaskFuture<Long>> squares = client.map((Integer x) -> (long) x * x, IntStream.rangeClosed(1, 100).boxed().toList());
        long sum = client.gather(squares).stream().mapToLong(Long::longValue).sum();
        List<DaskFuture<Integer>> ranks = client.map((Integer x) -> MpiRuntime.current().rank(), IntStream.range(0, 20).boxed().toList());
        System.out.println("RESULT " + sum);
        System.out.println("TASK RANKS " + new TreeSet<>(client.gather(ranks)));
        return sum;
    }
}
