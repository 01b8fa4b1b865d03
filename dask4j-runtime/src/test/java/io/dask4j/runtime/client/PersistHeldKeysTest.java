package io.dask4j.runtime.client;

import io.dask4j.runtime.cluster.LocalCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link Client#persist} and {@link Client#compute} with outputs that are not keys of the submitted
 * graph but keys the client already holds: they are reused as they are, each returned future is one
 * more reference, and releasing it leaves the other holders' data in place.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(30)
class PersistHeldKeysTest {
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

    @Test
    void persistReturnsHeldOutputsNextToTheGraphsOwnInOrder() throws Exception {
        DaskFuture<Object> a = client.persist(new TaskGraph().add("held-a", () -> 20), "held-a").get("held-a");
        assertThat(a.result(Duration.ofSeconds(10))).isEqualTo(20);

        TaskGraph g = new TaskGraph().add("held-b", (Integer x) -> x + 1, TaskGraph.ref("held-a"));
        Map<String, DaskFuture<Object>> out = client.persist(g, "held-b", "held-a");
        assertThat(out.keySet()).containsExactly("held-b", "held-a");
        assertThat(out.get("held-b").result(Duration.ofSeconds(10))).isEqualTo(21);
        assertThat(out.get("held-a").result(Duration.ofSeconds(10))).isEqualTo(20);

        out.get("held-a").release();
        out.get("held-b").release();
        assertThat(client.submit((Integer x) -> x * 2, a).result(Duration.ofSeconds(10))).isEqualTo(40);
        a.release();
    }

    @Test
    void computeOfOnlyHeldKeysSubmitsNothingAndKeepsThem() throws Exception {
        DaskFuture<Object> a = client.persist(new TaskGraph().add("held-c", () -> "kept"), "held-c").get("held-c");
        a.result(Duration.ofSeconds(10));
        int held = client.heldKeys();
        assertThat(client.compute(new TaskGraph(), "held-c")).containsEntry("held-c", "kept");
        assertThat(client.heldKeys()).isEqualTo(held);
        assertThat(a.result(Duration.ofSeconds(10))).isEqualTo("kept");
        a.release();
        assertThat(client.heldKeys()).isEqualTo(held - 1);
    }

    @Test
    void anOutputNeitherInTheGraphNorHeldIsRefusedAndTakesNoReference() {
        DaskFuture<Object> a = client.persist(new TaskGraph().add("held-d", () -> 1), "held-d").get("held-d");
        int held = client.heldKeys();
        assertThatThrownBy(() -> client.persist(new TaskGraph(), "held-d", "nobody-holds-this"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nobody-holds-this");
        assertThat(client.heldKeys()).isEqualTo(held);
        a.release();
        assertThat(client.heldKeys()).isEqualTo(held - 1);
    }
}
