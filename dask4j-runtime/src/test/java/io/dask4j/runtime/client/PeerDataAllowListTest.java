package io.dask4j.runtime.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dask4j.comm.Address;
import io.dask4j.comm.Comm;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.Comms;
import io.dask4j.comm.Message;
import io.dask4j.comm.serialize.ClassAllowList;
import io.dask4j.comm.serialize.ClassNotAllowedException;
import io.dask4j.runtime.protocol.Codec;
import io.dask4j.runtime.protocol.Ops;
import io.dask4j.runtime.scheduler.Scheduler;
import io.dask4j.runtime.scheduler.SchedulerConfig;
import io.dask4j.runtime.worker.Worker;
import io.dask4j.runtime.worker.WorkerConfig;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.example.usertasks.UserTasks;
import org.example.usertasks.UserTasks.Params;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Values of a class one worker allows and another does not, over tcp: a dependency that moves from worker to worker,
 * and a put-data that carries one. The worker that may not build the value refuses it with a typed error naming the
 * class, builds nothing of it, and keeps serving its peers and clients.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PeerDataAllowListTest {
    private static final ClassAllowList USER_TASKS = ClassAllowList.parse("org.example.usertasks.*");
    /** Bytes only the strict worker holds: a task that needs them is placed there (placement follows input bytes). */
    private static final int BIG = 1 << 16;
    /** Counted down by the task that keeps the strict worker's only thread busy, once it runs. */
    private static final CountDownLatch BUSY = new CountDownLatch(1);
    /** Lets that task end. */
    private static final CountDownLatch RELEASE = new CountDownLatch(1);

    private Scheduler scheduler;
    private Address address;
    private CommOptions cluster;
    /** A worker that allows only the runtime's and the JDK's classes. */
    private Worker strict;

    @BeforeEach
    void startTheSchedulerAndAStrictWorker() {
        scheduler = Scheduler.start(SchedulerConfig.listeningOn(Address.tcp("127.0.0.1", 0)));
        address = scheduler.addresses().getFirst();
        cluster = scheduler.config().options();   // with the secret the scheduler generated
        strict = Worker.start(worker("strict", ClassAllowList.builtInOnly()));
    }

    @AfterEach
    void stop() {
        strict.close();
        scheduler.close();
    }

    @Test
    void aDependencyOfAClassTheFetchingWorkerDoesNotAllowFailsItsTaskNamingTheClassAndTheWorkerServesOn() throws Exception {
        try (Client client = Client.connect(address, cluster, USER_TASKS)) {
            DaskFuture<int[]> big = client.scatter(new int[BIG]);   // the only worker yet: on the strict one
            try (Worker lenient = Worker.start(worker("lenient", USER_TASKS))) {
                // Busy, the strict worker is more occupied than the idle lenient one, where tasks without
                // inputs then go; their results (a Params, an Integer) stay there.
                DaskFuture<Integer> busy = client.submit(PeerDataAllowListTest::holdTheThread, big);
                assertThat(BUSY.await(30, TimeUnit.SECONDS)).isTrue();
                DaskFuture<Params> params = client.submit(UserTasks.params("p"), 2);
                assertThat(params.result()).isEqualTo(new Params("p", 2));
                DaskFuture<Integer> scale = client.submit((Params p) -> p.scale(), params);
                assertThat(scale.result()).isEqualTo(2);
                RELEASE.countDown();
                assertThat(busy.result()).isEqualTo(BIG);

                // Needs the lenient worker's Params and the strict worker's bigger input: runs on the strict
                // worker, which fetches the Params from its peer and may not build it.
                DaskFuture<Integer> refused = client.submit((Params p, int[] a) -> p.scale() + a.length, params, big);
                assertThatThrownBy(refused::result)
                        .isInstanceOf(RemoteTaskException.class)
                        .hasMessageContaining(Params.class.getName())
                        .satisfies(e -> {
                            RemoteTaskException remote = (RemoteTaskException) e;
                            assertThat(remote.remoteType()).isEqualTo(ClassNotAllowedException.class.getName());
                            assertThat(remote.worker()).isEqualTo(strict.id());
                        });

                // It serves on: the same peer's allowed value moves to it, and the task that needs it runs there.
                long fetchedBefore = strict.stats().keysFetched();
                DaskFuture<Integer> allowed = client.submit((Integer s, int[] a) -> s + a.length, scale, big);
                assertThat(allowed.result()).isEqualTo(2 + BIG);
                assertThat(strict.stats().keysFetched()).isEqualTo(fetchedBefore + 1);
                assertThat(lenient.stats().tasksFailed()).isZero();
            }
        }
    }

    @Test
    void aPutDataCarryingAClassTheWorkerDoesNotAllowIsAnsweredWithAnErrorNamingItAndTheConnectionServesOn() throws Exception {
        try (Comm peer = Comms.connect(strict.addresses().getFirst(), cluster.withIdentity("peer"));
             Client client = Client.connect(address, cluster, USER_TASKS)) {
            // A peer holding the secret (a worker or client of the cluster) puts a value of a refused class.
            peer.write(Codec.dataMessage(Ops.PUT_DATA, Map.of("keys", List.of("gadget")), List.of(new Params("p", 1))));
            Message reply = peer.read();
            assertThat(reply.op()).isEqualTo(Ops.ERROR);
            assertThat(reply.getString("type")).isEqualTo(ClassNotAllowedException.class.getName());
            assertThat(reply.getString("class")).isEqualTo(Params.class.getName());
            assertThat(reply.getString("message")).contains(Params.class.getName());

            // The same connection is served on, and nothing of the refused put was stored.
            peer.write(Codec.dataMessage(Ops.PUT_DATA, Map.of("keys", List.of("answer")), List.of(42)));
            assertThat(peer.read().op()).isEqualTo(Ops.OK);
            peer.write(Message.of(Ops.GET_DATA, Map.of("keys", List.of("gadget", "answer"))));
            Message data = peer.read();
            assertThat(data.getList("keys")).containsExactly("answer");
            assertThat(data.getList("missing")).containsExactly("gadget");

            // A client that scatters such a value gets the refusal as a typed exception, and scatters on.
            assertThatThrownBy(() -> client.scatter(new Params("q", 2)))
                    .isInstanceOf(DataRefusedException.class)
                    .hasMessageContaining(Params.class.getName())
                    .satisfies(e -> {
                        DataRefusedException refused = (DataRefusedException) e;
                        assertThat(refused.className()).isEqualTo(Params.class.getName());
                        assertThat(refused.remoteType()).isEqualTo(ClassNotAllowedException.class.getName());
                    });
            assertThat(client.scatter(41).result()).isEqualTo(41);
        }
    }

    private WorkerConfig worker(String name, ClassAllowList allowed) {
        return WorkerConfig.connectingTo(address).withOptions(cluster).withName(name).withThreads(1)
                .withAllowedClasses(allowed);
    }

    /** A task that keeps its worker's only thread until the test releases it. */
    private static Integer holdTheThread(int[] input) {
        BUSY.countDown();
        try {
            if (!RELEASE.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("not released within 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return input.length;
    }
}
