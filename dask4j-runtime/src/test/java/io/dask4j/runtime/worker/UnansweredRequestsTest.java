package io.dask4j.runtime.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.dask4j.comm.Address;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommException;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.Comms;
import io.dask4j.comm.Message;
import io.dask4j.comm.serialize.ClassAllowList;
import io.dask4j.comm.serialize.Deserializer;
import io.dask4j.runtime.client.Client;
import io.dask4j.runtime.client.DaskFuture;
import io.dask4j.runtime.protocol.Codec;
import io.dask4j.runtime.protocol.Ops;
import io.dask4j.runtime.scheduler.Scheduler;
import io.dask4j.runtime.scheduler.SchedulerConfig;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A member of the cluster that sends requests to a worker without reading the answers (workers and clients ask one
 * at a time per connection) loses its connection once more than {@link Worker#MAX_UNANSWERED_REQUESTS} wait, instead
 * of making the worker queue them without bound; the worker serves other connections on.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UnansweredRequestsTest {
    /** Big enough that the loopback socket buffers (a few MiB) hold only a few answers the peer does not read. */
    private static final int VALUE_DOUBLES = 512 * 1024;
    /** Requests after which the test stops writing: far beyond the limit plus the answers the buffers hold. */
    private static final int GIVE_UP = 100_000;

    @Test
    void aPeerThatDoesNotReadItsAnswersLosesItsConnectionAndOthersAreServed() throws Exception {
        try (Scheduler scheduler = Scheduler.start(SchedulerConfig.listeningOn(Address.tcp("127.0.0.1", 0)))) {
            Address address = scheduler.addresses().getFirst();
            CommOptions cluster = scheduler.config().options();
            try (Worker worker = Worker.start(WorkerConfig.connectingTo(address).withOptions(cluster).withThreads(1));
                 Client client = Client.connect(address, cluster)) {
                DaskFuture<double[]> big = client.scatter(new double[VALUE_DOUBLES]);
                String key = big.key();
                try (Comm greedy = Comms.connect(worker.addresses().getFirst(), cluster.withIdentity("greedy"))) {
                    // Never reading: at most the few answers the socket buffers hold leave the worker, so every
                    // further request waits, until the worker drops the connection and a write fails.
                    int sent = 0;
                    try {
                        while (sent < GIVE_UP) {
                            greedy.write(Message.of(Ops.GET_DATA, Map.of("keys", List.of(key))));
                            sent++;
                        }
                    } catch (CommException dropped) {
                        // the worker's abort reached this end
                    }
                    assertThat(sent).as("requests written before the connection was dropped").isLessThan(GIVE_UP)
                            .isGreaterThan(Worker.MAX_UNANSWERED_REQUESTS);
                }
                // Another connection, one request at a time, is served.
                try (Comm polite = Comms.connect(worker.addresses().getFirst(), cluster.withIdentity("polite"))) {
                    polite.write(Message.of(Ops.GET_DATA, Map.of("keys", List.of(key))));
                    Message data = polite.read();
                    assertThat(data.getList("keys")).containsExactly(key);
                    assertThat((double[]) Codec.values(data, new Deserializer(ClassAllowList.defaults())).getFirst())
                            .hasSize(VALUE_DOUBLES);
                }
                assertThat(big.result()).hasSize(VALUE_DOUBLES);
            }
        }
    }
}
