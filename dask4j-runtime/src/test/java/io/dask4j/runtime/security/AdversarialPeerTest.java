package io.dask4j.runtime.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.dask4j.comm.Address;
import io.dask4j.comm.CommLimits;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.Frame;
import io.dask4j.comm.Message;
import io.dask4j.comm.ReadBudget;
import io.dask4j.comm.wire.WireCodec;
import io.dask4j.runtime.client.Client;
import io.dask4j.runtime.client.DaskFuture;
import io.dask4j.runtime.cluster.LocalCluster;
import io.dask4j.runtime.protocol.Ops;
import io.dask4j.runtime.worker.Worker;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A cluster with the default security (tcp, a generated secret) under attack from a peer on raw sockets that does
 * not know the secret: it tries to register, submit, fetch, put, announce huge frames, hold idle connections and
 * flood the listeners with connects. Each attempt is refused or bounded, the budget accounting stays within its
 * limit, and a legitimate client computes correctly throughout (a background loop of tasks, checked at the end).
 */
@Timeout(180)
class AdversarialPeerTest {

    private static final ReadBudget BUDGET = new ReadBudget(64L << 20);
    private static final Duration HANDSHAKE_TIMEOUT = Duration.ofSeconds(2);
    private static final int MAX_HANDSHAKING = 32;
    private static LocalCluster cluster;
    private static Client client;

    private final AtomicBoolean attacking = new AtomicBoolean(true);
    private final AtomicInteger computed = new AtomicInteger();
    private final AtomicReference<Throwable> legitimateFailure = new AtomicReference<>();
    private Thread legitimate;

    @BeforeAll
    static void startCluster() {
        CommOptions options = CommOptions.defaults().withHandshakeTimeout(HANDSHAKE_TIMEOUT)
                .withLimits(CommLimits.defaults().withReadBudget(BUDGET).withMaxHandshaking(MAX_HANDSHAKING));
        cluster = LocalCluster.builder().workers(2).threadsPerWorker(1).transport("tcp").options(options).start();
        client = cluster.client();
    }

    @AfterAll
    static void stopCluster() {
        client.close();
        cluster.close();
    }

    /** The legitimate client's work, all through each test: tasks whose results are checked. */
    @BeforeEach
    void computeThroughout() {
        legitimate = Thread.ofVirtual().start(() -> {
            try {
                for (int i = 0; attacking.get() || i < 5; i++) {
                    int n = i;
                    DaskFuture<Integer> f = client.submit((Integer x) -> x * 2 + 1, n);
                    assertThat(f.result()).isEqualTo(n * 2 + 1);
                    computed.incrementAndGet();
                }
            } catch (Throwable e) {
                legitimateFailure.set(e);
            }
        });
    }

    @AfterEach
    void theLegitimateClientComputedCorrectlyThroughout() throws Exception {
        attacking.set(false);
        legitimate.join(Duration.ofSeconds(60));
        assertThat(legitimateFailure.get()).isNull();
        assertThat(computed.get()).isGreaterThanOrEqualTo(5);
        assertThat(cluster.scheduler().snapshot().workers()).as("no worker registered but ours").hasSize(2);
        assertThat(BUDGET.peakBytes()).isLessThanOrEqualTo(BUDGET.capacityBytes());
    }

    private static Address scheduler() {
        return cluster.schedulerAddress();
    }

    private static Address worker() {
        Worker w = cluster.workers().getFirst();
        return w.addresses().stream().filter(a -> a.scheme().equals("tcp")).findFirst().orElseThrow();
    }

    private static Message hello(boolean auth) {
        return Message.of("dask4j-hello", Map.of("version", 1L, "identity", "attacker", "nonce", new byte[32],
                "auth", auth));
    }

    /** Refused: the connection ends, and nothing but the server's hello and a refusal came back. */
    private static void assertRefused(RawPeer peer, String... neverSeen) throws Exception {
        assertThat(peer.readUntilClosed()).isTrue();
        assertThat(peer.received()).doesNotContain("dask4j-auth").doesNotContain(Ops.REGISTERED);
        for (String s : neverSeen) {
            assertThat(peer.received()).doesNotContain(s);
        }
    }

    @Test
    void registeringAsClientOrWorkerWithoutTheHandshakeIsRefused() throws Exception {
        try (RawPeer p = RawPeer.connect(scheduler())) {
            p.send(Message.of(Ops.REGISTER_CLIENT, Map.of("pid", 1L)));
            assertRefused(p);
        }
        try (RawPeer p = RawPeer.connect(scheduler())) {
            p.send(Message.of(Ops.REGISTER_WORKER, Map.of("nthreads", 1000L)));
            assertRefused(p);
        }
        assertThat(cluster.scheduler().snapshot().clients()).as("no client registered but ours").isEqualTo(1);
    }

    @Test
    void aPeerWithoutTheSecretOrWithAGuessIsRefusedAndGetsNoProofToTestGuessesAgainst() throws Exception {
        try (RawPeer p = RawPeer.connect(scheduler())) {
            p.send(hello(false)).send(Message.of(Ops.REGISTER_CLIENT, Map.of("pid", 1L)));
            assertRefused(p);
            assertThat(p.received()).contains("dask4j-handshake-error");
        }
        try (RawPeer p = RawPeer.connect(scheduler())) {
            p.send(hello(true)).send(Message.of("dask4j-auth", Map.of("mac", new byte[32])))
                    .send(Message.of(Ops.REGISTER_WORKER, Map.of("nthreads", 1000L)));
            assertRefused(p);
            assertThat(p.received()).contains("dask4j-handshake-error");
        }
    }

    @Test
    void fetchingOrOverwritingAWorkersDataIsRefusedAndTheValueStaysIntact() throws Exception {
        DaskFuture<String> value = client.scatter("the victim's value");
        String key = value.key();
        for (Worker w : cluster.workers()) {
            Address at = w.addresses().stream().filter(a -> a.scheme().equals("tcp")).findFirst().orElseThrow();
            try (RawPeer p = RawPeer.connect(at)) {
                p.send(hello(false)).send(Message.of(Ops.GET_DATA, Map.of("keys", List.of(key))));
                assertRefused(p, "the victim's value");
            }
            try (RawPeer p = RawPeer.connect(at)) {
                p.send(Message.of(Ops.PUT_DATA, Map.of("keys", List.of(key)), List.of(Frame.of(new byte[16]))))
                        .sendBytes(new byte[16]);
                assertRefused(p, Ops.OK);
            }
        }
        assertThat(value.result()).isEqualTo("the victim's value");
    }

    @Test
    void hugeAnnouncedFramesAreRefusedBeforeAnythingIsAllocated() throws Exception {
        byte[] huge = new WireCodec().encodeHeaderToArray(Message.of("dask4j-hello", Map.of(),
                List.of(Frame.of(new byte[1]))));
        // The same header, announcing a 2 GiB frame: patch its total length, as an attacker would.
        byte[] prelude = {'D', '4', 1, 0, (byte) 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xf0};
        for (Address target : List.of(scheduler(), worker())) {
            for (int i = 0; i < 12; i++) {
                try (RawPeer p = RawPeer.connect(target)) {
                    p.sendBytes(i % 2 == 0 ? prelude : huge);
                    assertRefused(p);
                }
            }
        }
        // 24 announcements of 2 GiB: none reached the budget (refused at 64 KiB before the handshake); what it saw
        // at most is the legitimate client's small tasks.
        assertThat(BUDGET.peakBytes()).isLessThan(1L << 20);
    }

    @Test
    void idleConnectionsAreCappedAndDroppedAfterTheHandshakeTimeout() throws Exception {
        List<RawPeer> idle = new ArrayList<>();
        try {
            for (int i = 0; i < MAX_HANDSHAKING * 3; i++) {
                idle.add(RawPeer.connect(scheduler()));   // never says a word
            }
            for (RawPeer p : idle) {
                assertThat(p.readUntilClosed()).isTrue();   // the oldest dropped by newer ones, the rest after the timeout
            }
        } finally {
            for (RawPeer p : idle) {
                p.close();
            }
        }
        // And the scheduler still accepts: a new legitimate client connects and computes.
        try (Client another = cluster.client()) {
            assertThat(another.submit((Integer x) -> x + 1, 41).result()).isEqualTo(42);
        }
    }

    @Test
    void aFloodOfConnectsLeavesTheListenersAccepting() throws Exception {
        for (Address target : List.of(scheduler(), worker())) {
            for (int i = 0; i < 500; i++) {
                new Socket(target.host(), target.port()).close();
            }
        }
        try (Client another = cluster.client()) {
            assertThat(another.submit((Integer x) -> x + 1, 1).result()).isEqualTo(2);
        }
    }
}
