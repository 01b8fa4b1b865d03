package io.dask4j.runtime.client;

import io.dask4j.runtime.task.TaskFunction;
import io.dask4j.runtime.cluster.LocalCluster;
import io.dask4j.runtime.worker.Worker;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The futures API end to end on an in-process cluster (2 workers x 1 thread, inproc comms). */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(30)
class ClientInprocTest {
    private LocalCluster cluster;
    private Client client;

    @BeforeAll
    void start() {
        cluster = LocalCluster.builder().workers(2).threadsPerWorker(1).start();
        client = cluster.client();
    }

    @AfterAll
    void stop() {
        client.close();
        cluster.close();
    }

    /**
     * A chain of 10,000 dependent tasks, computed and then forgotten, whose release cascades through the whole
     * chain: the state machine recurses that deep, which must not happen on a thread without the stack for it
     * (over inproc a write delivers on the writer's thread; run there, this overflowed the stack).
     */
    @Test
    void aChainOfTenThousandTasksRunsAndIsForgotten() throws Exception {
        int before = tasksKnown();
        TaskGraph g = new TaskGraph();
        g.add("deep-0", (Long v) -> v, 0L);
        for (int i = 1; i < 10_000; i++) {
            g.add("deep-" + i, (Long v) -> v + 1, TaskGraph.ref("deep-" + (i - 1)));
        }
        assertThat(client.compute(g, "deep-9999")).containsEntry("deep-9999", 9_999L);
        Await.until("the chain is forgotten", java.time.Duration.ofSeconds(20), () -> tasksKnown() <= before);
        assertThat(client.submit((Integer x) -> x + 1, 1).result()).isEqualTo(2);
    }

    private int tasksKnown() {
        return cluster.scheduler().snapshot().taskCounts().values().stream().mapToInt(Integer::intValue).sum();
    }

    @Test
    void submitReturnsAFutureWithKeyStatusAndResult() throws Exception {
        DaskFuture<Integer> f = client.submit((Integer x) -> x + 1, 41);
        assertThat(f.key()).startsWith("function-");
        assertThat(f.result(Duration.ofSeconds(10))).isEqualTo(42);
        assertThat(f.status()).isEqualTo(FutureStatus.FINISHED);
        assertThat(f.isDone()).isTrue();
        assertThat(f.exception()).isNull();
        assertThat(f.get()).isEqualTo(42);
    }

    @Test
    void futuresCanBeArgumentsAlsoInsideListsAndMaps() {
        DaskFuture<Integer> a = client.submit(() -> 20);
        DaskFuture<Integer> b = client.submit((Integer x, Integer y) -> x + y, a, 1);
        DaskFuture<Integer> sum = client.submit((List<Integer> xs) -> xs.stream().mapToInt(i -> i).sum(), List.of(a, b, 100));
        DaskFuture<String> fromMap = client.submit((Map<String, Integer> m) -> m.get("k") + "!", Map.of("k", a));
        DaskFuture<Integer> three = client.submit((TaskFunction<Integer>) xs -> (Integer) xs[0] + (Integer) xs[1] + (Integer) xs[2], a, b, 1);
        assertThat(sum.result()).isEqualTo(141);
        assertThat(fromMap.result()).isEqualTo("20!");
        assertThat(three.result()).isEqualTo(42);
    }

    @Test
    void mapAndGatherKeepTheItemsOrder() {
        List<DaskFuture<Integer>> squares = client.map(x -> x * x, IntStream.range(0, 500).boxed().toList());
        List<Integer> values = client.gather(squares);
        assertThat(values).hasSize(500);
        for (int i = 0; i < 500; i++) {
            assertThat(values.get(i)).isEqualTo(i * i);
        }
    }

    @Test
    void nullResultsComeBackAsNull() {
        DaskFuture<Object> f = client.submit(() -> null);
        assertThat(f.result()).isNull();
    }

    @Test
    void scatterPlacesDataOnWorkersAndTasksUseItThere() {
        List<DaskFuture<double[]>> data = client.scatter(List.of(new double[]{1, 2, 3}, new double[]{4, 5}));
        Set<String> holders = new HashSet<>();
        for (Worker w : cluster.workers()) {
            for (DaskFuture<double[]> d : data) {
                if (w.keys().contains(d.key())) {
                    holders.add(w.id());
                }
            }
        }
        assertThat(holders).as("round-robin over both workers").hasSize(2);
        DaskFuture<Double> total = client.submit((double[] x, double[] y) -> java.util.Arrays.stream(x).sum() + java.util.Arrays.stream(y).sum(),
                data.get(0), data.get(1));
        assertThat(total.result()).isEqualTo(15.0);
        assertThat(data.get(1).result()).containsExactly(4, 5);
    }

    @Test
    void dependenciesMoveWorkerToWorkerNeverThroughTheScheduler() {
        long fetchedBefore = fetched();
        long schedulerBytesBefore = cluster.scheduler().snapshot().frameBytesReceived();
        List<DaskFuture<long[]>> parts = client.scatter(List.of(new long[10_000], new long[10_000]));
        DaskFuture<Integer> n = client.submit((long[] x, long[] y) -> x.length + y.length, parts.get(0), parts.get(1));
        assertThat(n.result()).isEqualTo(20_000);
        assertThat(fetched() - fetchedBefore).as("values fetched from a peer worker").isGreaterThanOrEqualTo(1);
        assertThat(cluster.scheduler().snapshot().frameBytesReceived()).as("data bytes through the scheduler")
                .isEqualTo(schedulerBytesBefore);
    }

    private long fetched() {
        return cluster.workers().stream().mapToLong(w -> w.stats().keysFetched()).sum();
    }

    @Test
    void aFailingTaskRaisesTheRemoteTypeMessageTraceAndWorker() {
        DaskFuture<Integer> bad = client.submit((Integer x) -> {
            if (x > 0) {
                throw new IllegalStateException("boom " + x);
            }
            return x;
        }, 7);
        assertThatThrownBy(bad::result).isInstanceOfSatisfying(RemoteTaskException.class, e -> {
            assertThat(e.remoteType()).isEqualTo("java.lang.IllegalStateException");
            assertThat(e.remoteMessage()).isEqualTo("boom 7");
            assertThat(e.worker()).startsWith("inproc://worker-");
            assertThat(e.getCause().toString()).startsWith("java.lang.IllegalStateException: boom 7");
            assertThat(e.getCause().getStackTrace()).anySatisfy(frame ->
                    assertThat(frame.getClassName()).isEqualTo(ClientInprocTest.class.getName()));
        });
        assertThat(bad.status()).isEqualTo(FutureStatus.ERROR);
        assertThat(bad.exception()).isInstanceOf(RemoteTaskException.class);
        assertThatThrownBy(bad::get).isInstanceOf(ExecutionException.class).hasCauseInstanceOf(RemoteTaskException.class);

        DaskFuture<Integer> dependent = client.submit((Integer x) -> x + 1, bad);
        assertThatThrownBy(dependent::result).isInstanceOfSatisfying(RemoteTaskException.class, e -> {
            assertThat(e.failedKey()).isEqualTo(bad.key());
            assertThat(e.remoteMessage()).isEqualTo("boom 7");
        });
        assertThat(client.submit(() -> "still serving").result()).isEqualTo("still serving");
    }

    @Test
    void aTaskThatRunsOutOfMemoryFailsItsFutureAndEveryWorkerKeepsRunningTasks() throws Exception {
        List<DaskFuture<Integer>> ooms = client.map((Integer x) -> {
            if (x >= 0) {
                throw new OutOfMemoryError("simulated: Java heap space " + x);
            }
            return x;
        }, List.of(1, 2, 3, 4));
        for (DaskFuture<Integer> oom : ooms) {
            assertThatThrownBy(() -> oom.result(Duration.ofSeconds(30))).isInstanceOfSatisfying(RemoteTaskException.class,
                    e -> assertThat(e.remoteType()).isEqualTo("java.lang.OutOfMemoryError"));
        }
        assertThat(ooms).extracting(f -> f.exception().getMessage()).anyMatch(m -> m.contains("heap space"));
        // Both workers (one task thread each, and each ran some of the above) still take and finish tasks.
        List<DaskFuture<Integer>> after = client.map((Integer i) -> i * 2, List.of(1, 2, 3, 4, 5, 6, 7, 8));
        assertThat(client.gather(after, Duration.ofSeconds(30))).containsExactly(2, 4, 6, 8, 10, 12, 14, 16);
    }

    @Test
    void waitingOnAReleasedFutureIsAClearErrorNotAHang() {
        DaskFuture<Integer> finished = client.submit((Integer x) -> x, 1);
        assertThat(finished.result()).isEqualTo(1);
        finished.release();
        assertThatThrownBy(() -> finished.result(Duration.ofSeconds(5))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("released");
        assertThatThrownBy(() -> client.gather(List.of(finished), Duration.ofSeconds(5)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining(finished.key());

        DaskFuture<Integer> pending = client.submit((Integer ms) -> {
            java.util.concurrent.locks.LockSupport.parkNanos(ms * 1_000_000L);
            return ms;
        }, 300);
        pending.release();
        assertThatThrownBy(() -> pending.result(Duration.ofSeconds(5))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("released");
        assertThatThrownBy(pending::exception).isInstanceOf(IllegalStateException.class);
        assertThat(client.submit((Integer x) -> x + 1, 1).result()).isEqualTo(2);
    }

    @Test
    void completableFutureInteropComposes() {
        DaskFuture<Integer> f = client.submit(() -> 21);
        assertThat(f.thenApply(x -> x * 2).join()).isEqualTo(42);
        assertThat(f.join()).isEqualTo(21);
        List<Object> seen = new ArrayList<>();
        f.whenComplete((v, e) -> seen.add(v)).join();
        assertThat(seen).containsExactly(21);
        DaskFuture<Integer> bad = client.submit(() -> {
            throw new ArithmeticException("nope");
        });
        assertThatThrownBy(bad::join).isInstanceOf(CompletionException.class).hasCauseInstanceOf(RemoteTaskException.class);
    }

    @Test
    void waitAllWaitAnyAndAsCompleted() throws Exception {
        List<DaskFuture<Integer>> fs = client.map(x -> x + 1, List.of(1, 2, 3, 4));
        DaskFuture<Integer> any = client.waitAny(fs, Duration.ofSeconds(10));
        assertThat(any.isDone()).isTrue();
        client.waitAll(fs, Duration.ofSeconds(10));
        assertThat(fs).allMatch(DaskFuture::isDone);
        Set<Integer> completed = new HashSet<>();
        for (DaskFuture<Integer> f : client.asCompleted(fs)) {
            completed.add(f.result());
        }
        assertThat(completed).containsExactlyInAnyOrder(2, 3, 4, 5);
    }

    @Test
    void cancelledFuturesReportCancellation() {
        DaskFuture<Integer> slow = client.submit(args -> {
            Thread.sleep(2000);
            return 1;
        });
        assertThat(slow.cancel()).isTrue();
        assertThat(slow.status()).isEqualTo(FutureStatus.CANCELLED);
        assertThat(slow.isCancelled()).isTrue();
        assertThatThrownBy(slow::result).isInstanceOf(CancellationException.class);
    }

    @Test
    void aGraphIsComputedOrPersistedWhole() {
        TaskGraph g = new TaskGraph()
                .add("g-a", () -> 1)
                .add("g-b", (Integer x) -> x + 1, TaskGraph.ref("g-a"))
                .add("g-c", (Integer x, Integer y) -> x * 10 + y, TaskGraph.ref("g-a"), TaskGraph.ref("g-b"));
        assertThat(client.compute(g, "g-c")).containsExactly(Map.entry("g-c", 12));
        Map<String, DaskFuture<Object>> kept = client.persist(g, "g-b", "g-c");
        assertThat(kept.get("g-c").result()).isEqualTo(12);
        assertThat(kept.get("g-b").result()).isEqualTo(2);
        kept.values().forEach(DaskFuture::release);
    }

    @Test
    void aBinaryReductionTreeComputesTheRightSum() {
        TaskGraph g = new TaskGraph();
        int leaves = 64;
        List<String> level = new ArrayList<>();
        for (int i = 0; i < leaves; i++) {
            int v = i;
            g.add("leaf-" + i, () -> (long) v);
            level.add("leaf-" + i);
        }
        int n = 0;
        while (level.size() > 1) {
            List<String> next = new ArrayList<>();
            for (int i = 0; i < level.size(); i += 2) {
                String k = "sum-" + n++;
                g.add(k, (Long x, Long y) -> x + y, TaskGraph.ref(level.get(i)), TaskGraph.ref(level.get(i + 1)));
                next.add(k);
            }
            level = next;
        }
        assertThat(client.compute(g, level.getFirst())).containsEntry(level.getFirst(), (long) leaves * (leaves - 1) / 2);
    }

    @Test
    void releasedKeysAreForgottenOnWorkersAndScheduler() {
        int before = totalTasks();
        DaskFuture<int[]> f = client.submit(() -> new int[1000]);
        f.result();
        String key = f.key();
        assertThat(cluster.workers()).anyMatch(w -> w.holds(key));
        f.release();
        Await.until("no worker holds " + key, Duration.ofSeconds(10),
                () -> cluster.workers().stream().noneMatch(w -> w.holds(key)));
        Await.until("the scheduler forgot " + key, Duration.ofSeconds(10), () -> totalTasks() <= before);
    }

    private int totalTasks() {
        return cluster.scheduler().snapshot().taskCounts().values().stream().mapToInt(Integer::intValue).sum();
    }

    @Test
    void unreachableFuturesAreReleasedByTheCleaner() {
        String key = submitAndDrop();
        Await.until("the cleaner released " + key, Duration.ofSeconds(20), () -> {
            System.gc();
            return cluster.workers().stream().noneMatch(w -> w.holds(key));
        });
    }

    private String submitAndDrop() {
        DaskFuture<String> f = client.submit(() -> "garbage");
        f.result();
        return f.key();
    }

    @Test
    void largeResultsComeBackInSeveralSizeCappedReplies() {
        List<DaskFuture<byte[]>> big = client.map(i -> {
            byte[] b = new byte[24 << 20];
            b[b.length - 1] = (byte) (int) i;
            return b;
        }, List.of(1, 2, 3, 4, 5, 6, 7, 8));
        List<byte[]> values = client.gather(big);
        for (int i = 0; i < 8; i++) {
            assertThat(values.get(i)).hasSize(24 << 20);
            assertThat(values.get(i)[(24 << 20) - 1]).isEqualTo((byte) (i + 1));
        }
        big.forEach(DaskFuture::release);
    }

    @Test
    void theProgressBarReachesTheEnd() {
        List<DaskFuture<Integer>> fs = client.map(x -> x, List.of(1, 2, 3));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        client.progress(fs, new PrintStream(out, true, StandardCharsets.UTF_8));
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("100% 3/3 tasks");
    }
}
