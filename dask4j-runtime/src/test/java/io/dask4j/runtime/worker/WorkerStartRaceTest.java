package io.dask4j.runtime.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dask4j.comm.Address;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.Comms;
import io.dask4j.comm.Message;
import io.dask4j.comm.serialize.ClassAllowList;
import io.dask4j.comm.serialize.Deserializer;
import io.dask4j.runtime.protocol.Codec;
import io.dask4j.runtime.protocol.Ops;
import io.dask4j.runtime.scheduler.Scheduler;
import io.dask4j.runtime.scheduler.SchedulerConfig;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A peer may ask a worker for something before the worker has finished starting (a client hears of a worker from
 * the scheduler as soon as it registers): the request waits for the start and is answered, never dropped silently,
 * which left the asker waiting forever.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WorkerStartRaceTest {

    @Test
    void aPutSentWhileTheWorkerIsStillStartingIsAnsweredOnceItHasStarted() throws Exception {
        try (Scheduler scheduler = Scheduler.start(SchedulerConfig.listeningOn(Address.tcp("127.0.0.1", 0)))) {
            Address address = scheduler.addresses().getFirst();
            CommOptions cluster = scheduler.config().options();
            AtomicReference<Comm> early = new AtomicReference<>();
            AtomicReference<CompletableFuture<Message>> reply = new AtomicReference<>();
            // Runs on the starting thread once the worker listens and before it registers: the put arrives at a
            // worker that cannot hold anything yet.
            WorkerConfig config = WorkerConfig.connectingTo(address).withOptions(cluster).withThreads(1).withOnListening(addresses -> {
                Comm comm = Comms.connect(addresses.getFirst(), cluster.withIdentity("early"));
                early.set(comm);
                comm.write(Codec.dataMessage(Ops.PUT_DATA, Map.of("keys", List.of("early-key")), List.of(41)));
                CompletableFuture<Message> r = CompletableFuture.supplyAsync(comm::read);
                reply.set(r);
                // No answer while the worker is still starting: it waits (and this wait gives the request time to
                // be read, where the worker used to fail it silently).
                assertThatThrownBy(() -> r.get(300, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
            });
            try (Worker worker = Worker.start(config); Comm comm = early.get()) {
                Message answer = reply.get().get(30, TimeUnit.SECONDS);
                assertThat(answer.op()).isEqualTo(Ops.OK);
                comm.write(Message.of(Ops.GET_DATA, Map.of("keys", List.of("early-key"))));
                Message data = comm.read();
                assertThat(data.getList("keys")).containsExactly("early-key");
                assertThat(Codec.values(data, new Deserializer(ClassAllowList.defaults()))).containsExactly(41);
            }
        }
    }
}
