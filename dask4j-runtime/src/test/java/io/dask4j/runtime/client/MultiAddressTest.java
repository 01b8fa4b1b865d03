package io.dask4j.runtime.client;

import io.dask4j.comm.Address;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.stats.CommTraffic;
import io.dask4j.comm.stats.PeerTraffic;
import io.dask4j.runtime.scheduler.Scheduler;
import io.dask4j.runtime.scheduler.SchedulerConfig;
import io.dask4j.runtime.worker.Worker;
import io.dask4j.runtime.worker.WorkerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The layout an MPI launcher uses: the scheduler listens on two addresses, workers join through one
 * (here inproc, standing in for mpi://0) and also listen on tcp, and an outside client comes in over tcp.
 */
@Timeout(30)
class MultiAddressTest {
    @Test
    void workersOnOneSchemeServeAClientOnAnother() {
        Address inproc = Address.inproc("sched-" + UUID.randomUUID());
        try (Scheduler scheduler = Scheduler.start(SchedulerConfig.listeningOn(inproc, Address.tcp("127.0.0.1", 0)))) {
            Address tcp = scheduler.addresses().get(1);
            assertThat(tcp.scheme()).isEqualTo("tcp");
            // Listening on tcp without a secret given, the scheduler generated one: workers and clients need it.
            CommOptions cluster = scheduler.config().options();
            assertThat(cluster.hasSecret()).isTrue();
            try (Worker w1 = Worker.start(WorkerConfig.connectingTo(inproc).withOptions(cluster).withListenAddresses(
                    List.of(Address.inproc("w1-" + UUID.randomUUID()), Address.tcp("127.0.0.1", 0))));
                 Worker w2 = Worker.start(WorkerConfig.connectingTo(inproc).withOptions(cluster).withListenAddresses(
                    List.of(Address.inproc("w2-" + UUID.randomUUID()), Address.tcp("127.0.0.1", 0))));
                 Client client = Client.connect(tcp, cluster)) {
                assertThat(w1.id()).startsWith("inproc://");
                List<DaskFuture<Integer>> parts = client.scatter(List.of(40, 2));
                DaskFuture<Integer> sum = client.submit((Integer a, Integer b) -> a + b, parts.get(0), parts.get(1));
                assertThat(sum.result()).isEqualTo(42);
                assertThat(w1.stats().keysFetched() + w2.stats().keysFetched()).as("peer fetch over inproc").isEqualTo(1);
            }
        }
    }

    /**
     * Routes as an MPI job across hosts sets them: each worker tells where it listens before it registers
     * ({@code onListening}), the scheduler names peers by their first (inproc) address, and the routes send a fetch
     * from one worker to the other over tcp instead.
     */
    @Test
    void aWorkerFetchesOverTheAddressItsRoutesChoose() {
        Address inproc = Address.inproc("sched-" + UUID.randomUUID());
        try (Scheduler scheduler = Scheduler.start(SchedulerConfig.listeningOn(inproc, Address.tcp("127.0.0.1", 0)))) {
            Map<Address, Address> toTcp = new ConcurrentHashMap<>();
            Map<String, List<Address>> told = new ConcurrentHashMap<>();
            String tag = UUID.randomUUID().toString().substring(0, 8);
            CommOptions cluster = scheduler.config().options().withRoutes(a -> toTcp.getOrDefault(a, a));
            try (Worker w1 = Worker.start(routedWorker(inproc, cluster, "w1-" + tag, toTcp, told));
                 Worker w2 = Worker.start(routedWorker(inproc, cluster, "w2-" + tag, toTcp, told));
                 Client client = Client.connect(inproc, cluster)) {
                assertThat(told).containsEntry("w1-" + tag, w1.addresses()).containsEntry("w2-" + tag, w2.addresses());
                assertThat(w1.id()).startsWith("inproc://");
                List<DaskFuture<Integer>> parts = client.scatter(List.of(40, 2));
                DaskFuture<Integer> sum = client.submit((Integer a, Integer b) -> a + b, parts.get(0), parts.get(1));
                assertThat(sum.result()).isEqualTo(42);
                assertThat(w1.stats().keysFetched() + w2.stats().keysFetched()).isEqualTo(1);
                // Comms to a worker (the other worker's fetch, the client's scatter), not the scheduler's from them:
                // had a route not been taken, one would be inproc.
                List<PeerTraffic> toWorkers = CommTraffic.snapshot().peers().stream()
                        .filter(p -> p.identity().endsWith(tag) && !p.peer().startsWith(inproc.toString())).toList();
                assertThat(toWorkers).as("comms to the workers").isNotEmpty()
                        .allSatisfy(p -> assertThat(p.transport()).isEqualTo("tcp"));
            }
        }
    }

    private static WorkerConfig routedWorker(Address scheduler, CommOptions cluster, String name, Map<Address, Address> toTcp,
                                             Map<String, List<Address>> told) {
        return WorkerConfig.connectingTo(scheduler).withOptions(cluster.withIdentity(name)).withName(name)
                .withListenAddresses(List.of(Address.inproc(name + "-" + UUID.randomUUID()), Address.tcp("127.0.0.1", 0)))
                .withOnListening(addresses -> {
                    told.put(name, addresses);
                    toTcp.put(addresses.get(0), addresses.get(1));
                });
    }
}
