package io.dask4j.runtime.client;

import io.dask4j.runtime.cluster.LocalCluster;
import io.dask4j.runtime.scheduler.SchedulerConfig;
import io.dask4j.runtime.worker.Worker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Serialized task functions live as long as a task needs them: a client submitting lambdas that capture a
 * different value each time must not grow the scheduler's, the workers' or its own memory for ever.
 */
@Timeout(60)
class FunctionLifecycleTest {
    private LocalCluster cluster;

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** A cluster that keeps no unused function: each is forgotten as soon as no task runs it. */
    private Client start(String transport) {
        cluster = LocalCluster.builder().workers(2).threadsPerWorker(1).transport(transport).unusedFunctionBytes(0).start();
        return cluster.client();
    }

    private int heldAnywhere(Client client) {
        int held = cluster.scheduler().snapshot().functionsHeld() + client.functionsSent();
        for (Worker w : cluster.workers()) {
            held += w.stats().functionsHeld();
        }
        return held;
    }

    private void awaitNoneHeld(Client client) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (heldAnywhere(client) > 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(cluster.scheduler().snapshot().functionsHeld()).as("scheduler").isZero();
        assertThat(client.functionsSent()).as("client").isZero();
        for (Worker w : cluster.workers()) {
            assertThat(w.stats().functionsHeld()).as("worker " + w).isZero();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"inproc", "tcp"})
    void capturingLambdasAreFreedEverywhereOnceTheirTasksAreForgotten(String transport) throws Exception {
        Client client = start(transport);
        SerializableFunction<Integer, Integer> reused = x -> x + 1;
        DaskFuture<Integer> first = client.submit(reused, 1);
        assertThat(first.result()).isEqualTo(2);
        first.release();
        for (int i = 0; i < 100; i++) {
            int captured = i;
            DaskFuture<Integer> f = client.submit(() -> captured * 3);
            assertThat(f.result()).isEqualTo(captured * 3);
            f.release();
        }
        List<DaskFuture<Integer>> mapped = client.map(reused, List.of(1, 2, 3));
        assertThat(client.gather(mapped)).containsExactly(2, 3, 4);
        mapped.forEach(DaskFuture::release);
        awaitNoneHeld(client);

        // The client kept the lambda's id: a forgotten function is shipped again, to the scheduler and the workers.
        assertThat(client.submit(reused, 41).result()).isEqualTo(42);
        assertThat(client.gather(client.map(reused, List.of(5, 6, 7, 8)))).containsExactly(6, 7, 8, 9);
        assertThat(client.lastError()).isNull();
    }

    @Test
    void byDefaultRecentlyUnusedFunctionsAreKeptUpToABudgetAndTheOldestForgotten() throws Exception {
        cluster = LocalCluster.builder().workers(2).threadsPerWorker(1).start();
        Client client = cluster.client();
        int payload = 64 << 10;   // doubles: each lambda captures 512 KiB
        int lambdas = 40;         // 20 MiB of functions, against the default budget of 8 MiB
        for (int i = 0; i < lambdas; i++) {
            double[] captured = new double[payload];
            captured[0] = i;
            DaskFuture<Double> f = client.submit(() -> captured[0] + captured.length);
            assertThat(f.result()).isEqualTo(i + payload);
            f.release();
        }
        long perFunction = (long) payload * Double.BYTES;
        long keepable = SchedulerConfig.DEFAULT_UNUSED_FUNCTION_BYTES / perFunction;
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        // The workers hear of the forgetting after the client does (the scheduler frees a function everywhere
        // once the client answered): wait for both.
        while ((client.functionsSent() > keepable || cluster.workers().stream().anyMatch(w -> w.stats().functionsHeld() > keepable))
                && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(cluster.scheduler().snapshot().functionsHeld()).isBetween(1, (int) keepable);
        assertThat(client.functionsSent()).isBetween(1, (int) keepable);
        for (Worker w : cluster.workers()) {
            assertThat(w.stats().functionsHeld()).isLessThanOrEqualTo((int) keepable);
        }
    }

    @Test
    void submissionsRacingTheForgettingOfTheirFunctionAllRun() throws Exception {
        Client client = start("inproc");
        SerializableFunction<Integer, Integer> shared = x -> x * 2;
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            List<Future<Integer>> sums = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                sums.add(threads.submit(() -> {
                    int sum = 0;
                    // Each task is released as soon as it is done, so the function's last task keeps being forgotten
                    // (and the client asked to forget it) while other threads name it in new submissions.
                    for (int i = 0; i < 150; i++) {
                        DaskFuture<Integer> f = client.submit(shared, i);
                        sum += f.result(Duration.ofSeconds(20));
                        f.release();
                    }
                    return sum;
                }));
            }
            for (Future<Integer> s : sums) {
                assertThat(s.get()).isEqualTo(2 * (149 * 150 / 2));
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(client.lastError()).as("no graph named a function the scheduler had dropped").isNull();
        awaitNoneHeld(client);
    }
}
