package io.dask4j.runtime.client;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dask4j.comm.Address;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.ProtocolException;
import io.dask4j.runtime.scheduler.Scheduler;
import io.dask4j.runtime.scheduler.SchedulerConfig;
import io.dask4j.runtime.worker.Worker;
import io.dask4j.runtime.worker.WorkerConfig;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What a client says when the address it was given is not a scheduler's. */
@Timeout(30)
class ClientConnectTest {

    /** Before, it said "scheduler refused the client: {message=unknown op 'register-client'}". */
    @Test
    void aWorkersAddressIsNamedAsNotASchedulerAndTakenForAWorkers() {
        try (Scheduler scheduler = Scheduler.start(SchedulerConfig.listeningOn(Address.tcp("127.0.0.1", 0)))) {
            // The cluster's generated secret: the worker listens on tcp, and the client must pass its handshake.
            byte[] secret = scheduler.config().options().secret();
            WorkerConfig config = WorkerConfig.connectingTo(scheduler.address());
            try (Worker worker = Worker.start(config.withOptions(config.options().withSecret(secret))
                    .withListenAddresses(List.of(Address.tcp("127.0.0.1", 0))))) {
                Address workerAddress = worker.addresses().getFirst();
                assertThatThrownBy(() -> Client.connect(workerAddress, CommOptions.defaults().withSecret(secret)))
                        .isInstanceOf(ProtocolException.class)
                        .hasMessage(workerAddress + ": not a scheduler (the peer answered: unknown op 'register-client'); "
                                + "is this a worker's address?");
            }
        }
    }
}
