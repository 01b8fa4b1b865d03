package io.dask4j.examples.nodes;

import io.dask4j.runtime.cluster.LocalCluster;
import io.dask4j.array.BlockLayout;
import io.dask4j.array.ChunkSpec;
import io.dask4j.array.DArray;
import io.dask4j.array.DArrays;
import io.dask4j.comm.stats.CommTraffic;
import io.dask4j.comm.stats.PeerTraffic;
import io.dask4j.comm.stats.TransportGauges;
import io.dask4j.launcher.MpiCluster;
import io.dask4j.launcher.MpiClusterOptions;
import io.dask4j.launcher.MpiProtocol;
import io.dask4j.mpi.MpiRuntime;
import io.dask4j.mpi.engine.ProgressEngine;
import io.dask4j.runtime.client.Client;
import io.dask4j.runtime.client.DaskFuture;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;

/**
 * A user program for the multi-node job tests: {@code NodesMain MODE PROTOCOL LOGDIR} (the protocol is not
 * last: Open MPI 4.1's mpirun crashes when a java command line ends with the word {@code tcp}). From the client
 * rank it prints:
 * <ul>
 *   <li>{@code WORKER rank=R host=H doorbells=D}, once for each worker rank that ran a task: the host it runs on
 *       and how many ranks can ring its doorbell (ranks of its node only; -1 without an MPI engine);</li>
 *   <li>{@code CROSS reducer=H inputs=[H1, H2] sum=S}: squares computed on the workers, summed by one task on a
 *       worker that had to fetch the squares computed on the other hosts;</li>
 *   <li>{@code SEED cluster=S local=L}: the seed workload's sum, {@code (x + x.T).transpose().sum()}, with x's
 *       blocks laid out row-major over the workers (so blocks cross nodes), and the same on a local cluster;</li>
 *   <li>{@code LINKS rank=R peers=[worker-3:tcp, scheduler:mpi, ...]}, once for each worker rank that ran a probe,
 *       and {@code LINKS rank=1 ...} for the client's process: over which transport its comms with the scheduler and
 *       the workers went (from the process's comm traffic, by the peer's handshake identity).</li>
 * </ul>
 * Then {@code ok} returns from main; {@code wait} prints {@code WAITING} and waits for tasks that sleep on every
 * worker (for the tests that take a node away mid-job).
 */
public final class NodesMain {
    private NodesMain() {
    }

    public static void main(String[] args) throws Exception {
        MpiClusterOptions options = MpiClusterOptions.defaults().withLogDirectory(Path.of(args[2]))
                .withProtocol(MpiProtocol.parse(args[1])).withThreads(2);
        Client client = MpiCluster.initialize(options);
        System.out.println("CLIENT rank=" + MpiCluster.rank() + " host=" + host() + " workers=" + MpiCluster.workerRanks());
        List<DaskFuture<String>> probes = client.map((Integer i) -> {
            LockSupport.parkNanos(20_000_000L);   // long enough that every worker gets some
            return "WORKER rank=" + MpiRuntime.current().rank() + " host=" + host() + " doorbells=" + doorbellRanks();
        }, IntStream.range(0, 6 * MpiCluster.workerRanks().size()).boxed().toList());
        new TreeSet<>(client.gather(probes)).forEach(System.out::println);

        List<DaskFuture<String>> squares = client.map((Integer x) -> host() + " " + (long) x * x,
                IntStream.rangeClosed(1, 100).boxed().toList());
        DaskFuture<String> reduced = client.submit((List<String> parts) -> {
            TreeSet<String> hosts = new TreeSet<>();
            long sum = 0;
            for (String part : parts) {
                String[] words = part.split(" ");
                hosts.add(words[0]);
                sum += Long.parseLong(words[1]);
            }
            return "CROSS reducer=" + host() + " inputs=" + hosts + " sum=" + sum;
        }, squares);
        System.out.println(reduced.result());

        System.out.printf(Locale.ROOT, "SEED cluster=%.17g local=%.17g%n", seedSum(client, 600, 100), localSeedSum(600, 100));

        List<DaskFuture<String>> links = client.map((Integer i) -> {
            LockSupport.parkNanos(20_000_000L);
            return links(MpiRuntime.current().rank());
        }, IntStream.range(0, 6 * MpiCluster.workerRanks().size()).boxed().toList());
        Map<String, String> byRank = new TreeMap<>();
        for (String line : client.gather(links)) {
            byRank.put(line.substring(0, line.indexOf(" peers=")), line);
        }
        byRank.values().forEach(System.out::println);
        System.out.println(links(MpiCluster.rank()));

        if (args[0].equals("wait")) {
            List<DaskFuture<Integer>> sleepers = client.map((Integer i) -> {
                LockSupport.parkNanos(Duration.ofMinutes(3).toNanos());
                return i;
            }, IntStream.range(0, 4 * MpiCluster.workerRanks().size()).boxed().toList());
            System.out.println("WAITING");
            client.gather(sleepers);
        }
    }

    /** The seed workload on {@code client}'s cluster: an {@code n x n} array of {@code chunk}-sided blocks laid out row-major. */
    static double seedSum(Client client, int n, int chunk) throws Exception {
        DArray x = DArrays.random(n, n, ChunkSpec.of(chunk), 42).persist(client, BlockLayout.ROW_MAJOR)
                .await(Duration.ofMinutes(2));
        try {
            return x.add(x.T()).transpose().sum().compute(client);
        } finally {
            x.release();
        }
    }

    /** The same on a local cluster of 2 workers. */
    static double localSeedSum(int n, int chunk) {
        try (Client local = LocalCluster.startClient(2, 1)) {
            DArray x = DArrays.random(n, n, ChunkSpec.of(chunk), 42);
            return x.add(x.T()).transpose().sum().compute(local);
        }
    }

    /** {@code LINKS rank=R peers=[identity:transport, ...]}: this process's comms with the scheduler and workers. */
    private static String links(int rank) {
        TreeSet<String> peers = new TreeSet<>();
        for (PeerTraffic p : CommTraffic.snapshot().peers()) {
            // inproc: the client's local cluster (the seed workload's reference sum)
            if (!p.transport().equals("inproc") && (p.identity().startsWith("worker-") || p.identity().equals("scheduler"))) {
                peers.add(p.identity() + ":" + p.transport());
            }
        }
        return "LINKS rank=" + rank + " peers=" + peers;
    }

    static String host() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "unknown";
        }
    }

    private static long doorbellRanks() {
        Map<String, Double> engine = TransportGauges.snapshot().get(ProgressEngine.GAUGES);
        return engine == null ? -1 : engine.getOrDefault("doorbell_ranks", -1.0).longValue();
    }
}
