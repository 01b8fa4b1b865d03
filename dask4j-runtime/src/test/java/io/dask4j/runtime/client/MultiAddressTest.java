package io.dask4j.runtime.client;

import io.dask4j.comm.Address;
import io.dask4j.comm.CommOptions;
import io.dask4j.runtime.scheduler.Scheduler;
import io.dask4j.runtime.scheduler.SchedulerConfig;
import io.dask4j.runtime.worker.Worker;
import io.dask4j.runtime.worker.WorkerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.UUID;

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
}
