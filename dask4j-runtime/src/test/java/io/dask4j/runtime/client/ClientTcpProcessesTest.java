package io.dask4j.runtime.client;

import io.dask4j.runtime.cluster.LocalCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The futures API over tcp with the workers in two separate JVMs (spawned by {@link LocalCluster}).
 * One cluster for the whole class, to keep the number of JVMs small; the last test kills a worker.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(90)
class ClientTcpProcessesTest {
    private LocalCluster cluster;
    private Client client;
    /** The worker JVMs' java.io.tmpdir, where each worker makes its local directory. */
    private Path workerTmp;

    @BeforeAll
    void start() throws IOException {
        workerTmp = Files.createTempDirectory("dask4j-processes-test-");
        cluster = LocalCluster.builder().workers(2).threadsPerWorker(1).processes(true)
                .jvmArgs(List.of("-Djava.io.tmpdir=" + workerTmp)).start();
        client = cluster.client();
    }

    @AfterAll
    void stop() throws IOException {
        if (client != null) {
            client.close();
        }
        if (cluster != null) {
            cluster.close();
            for (Process p : cluster.workerProcesses()) {
                assertThat(p.isAlive()).as("worker process " + p.pid() + " exited").isFalse();
            }
            // The worker that ended normally removed its local directory; only the one killed by the last
            // test may have left its own.
            try (Stream<Path> left = Files.list(workerTmp)) {
                assertThat(left.filter(d -> d.getFileName().toString().startsWith("dask4j-worker-")).toList())
                        .as("worker directories left in " + workerTmp).hasSizeLessThanOrEqualTo(1);
            }
            try (Stream<Path> all = Files.walk(workerTmp)) {
                all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    @Test
    @Order(1)
    void submitMapGatherAndScatterWorkAcrossProcesses() {
        assertThat(cluster.schedulerAddress().scheme()).isEqualTo("tcp");
        assertThat(cluster.scheduler().snapshot().workers()).hasSize(2)
                .allSatisfy(w -> assertThat(w.addresses().getFirst()).startsWith("tcp://"));
        DaskFuture<Integer> a = client.submit((Integer x) -> x + 1, 41);
        assertThat(a.result()).isEqualTo(42);
        List<DaskFuture<Integer>> squares = client.map(x -> x * x, List.of(1, 2, 3, 4, 5, 6));
        assertThat(client.gather(squares)).containsExactly(1, 4, 9, 16, 25, 36);
        List<DaskFuture<double[]>> parts = client.scatter(List.of(new double[]{1, 2}, new double[]{3, 4}));
        DaskFuture<Double> dot = client.submit((double[] x, double[] y) -> x[0] * y[0] + x[1] * y[1], parts.get(0), parts.get(1));
        assertThat(dot.result()).isEqualTo(11.0);
    }

    @Test
    @Order(2)
    void remoteErrorsKeepTheirTypeAndWorker() {
        DaskFuture<Object> bad = client.submit(() -> {
            throw new UnsupportedOperationException("not here");
        });
        assertThatThrownBy(bad::result).isInstanceOfSatisfying(RemoteTaskException.class, e -> {
            assertThat(e.remoteType()).isEqualTo("java.lang.UnsupportedOperationException");
            assertThat(e.worker()).startsWith("tcp://127.0.0.1:");
            assertThat(e.getCause().getStackTrace()).isNotEmpty();
        });
        assertThat(client.submit(() -> 1).result()).isEqualTo(1);
    }

    @Test
    @Order(3)
    void aClientThatDisconnectsHasItsKeysReleased() {
        Client other = cluster.client();
        List<DaskFuture<Integer>> held = other.map(x -> x, List.of(1, 2, 3, 4, 5));
        assertThat(other.gather(held)).hasSize(5);
        // Counted with the five held: futures that earlier tests dropped may be released meanwhile (once the GC
        // clears them), which only lowers the counts, so the five must go for the counts to fall by five.
        int tasks = totalTasks();
        int inMemory = keysInMemory();
        assertThat(inMemory).as("the five results are held on the workers").isGreaterThanOrEqualTo(5);
        other.abortConnection();
        Await.until("the scheduler released the vanished client's keys", Duration.ofSeconds(20),
                () -> totalTasks() <= tasks - 5 && keysInMemory() <= inMemory - 5);
        assertThat(cluster.scheduler().snapshot().clients()).isEqualTo(1);
    }

    private int keysInMemory() {
        return cluster.scheduler().snapshot().workers().stream().mapToInt(w -> w.keysInMemory()).sum();
    }

    private int totalTasks() {
        return cluster.scheduler().snapshot().taskCounts().values().stream().mapToInt(Integer::intValue).sum();
    }

    @Test
    @Order(4)
    void aWorkerProcessKilledMidGraphStillGivesTheRightAnswer() {
        TaskGraph g = new TaskGraph();
        int leaves = 32;
        List<String> level = new ArrayList<>();
        for (int i = 0; i < leaves; i++) {
            long v = i;
            g.add("k-leaf-" + i, args -> {
                Thread.sleep(40);
                return v;
            });
            level.add("k-leaf-" + i);
        }
        int n = 0;
        while (level.size() > 1) {
            List<String> next = new ArrayList<>();
            for (int i = 0; i < level.size(); i += 2) {
                String k = "k-sum-" + n++;
                g.add(k, (Long x, Long y) -> x + y, TaskGraph.ref(level.get(i)), TaskGraph.ref(level.get(i + 1)));
                next.add(k);
            }
            level = next;
        }
        String root = level.getFirst();
        long completedBefore = cluster.scheduler().snapshot().tasksCompleted();
        Map<String, DaskFuture<Object>> result = client.persist(g, root);
        Await.until("both workers finished some leaves", Duration.ofSeconds(30),
                () -> cluster.scheduler().snapshot().tasksCompleted() >= completedBefore + 8);
        cluster.killWorkerProcess(0);
        assertThat(result.get(root).result()).isEqualTo((long) leaves * (leaves - 1) / 2);
        Await.until("the scheduler noticed the dead worker", Duration.ofSeconds(10),
                () -> cluster.scheduler().snapshot().workersLost() == 1);
    }
}
