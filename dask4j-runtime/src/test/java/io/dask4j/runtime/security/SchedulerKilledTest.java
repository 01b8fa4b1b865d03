package io.dask4j.runtime.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dask4j.comm.Address;
import io.dask4j.comm.CommOptions;
import io.dask4j.runtime.client.Client;
import io.dask4j.runtime.client.DaskFuture;
import io.dask4j.runtime.protocol.SchedulerFile;
import io.dask4j.runtime.worker.Worker;
import io.dask4j.runtime.worker.WorkerConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A scheduler SIGKILLed under tcp workers and a client: the workers stop and the client's futures fail with an error
 * that says the scheduler is gone, within the bound docs/security.md gives (the dead-peer timeout, 30 s by default;
 * a killed process's kernel closes its connections, so here it is at once).
 */
@Timeout(120)
class SchedulerKilledTest {

    private static final Duration BOUND = CommOptions.DEFAULT_DEAD_PEER_TIMEOUT;

    @TempDir
    Path dir;

    @Test
    void workersAndClientsEndWithAClearErrorWithinTheDeadPeerTimeout() throws Exception {
        Path file = dir.resolve("scheduler.json");
        String java = ProcessHandle.current().info().command().orElse("java");
        Process scheduler = new ProcessBuilder(java, "--class-path", System.getProperty("java.class.path"),
                SchedulerProcessMain.class.getName(), file.toString()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("scheduler.log").toFile()).start();
        try {
            SchedulerFile.Contents contents = SchedulerFile.readContents(file, Duration.ofSeconds(60), line -> { });
            assertThat(contents.secret()).as("a generated secret").isNotNull();
            Address address = contents.addresses().getFirst();
            CommOptions cluster = contents.options(CommOptions.defaults());
            try (Worker worker = Worker.start(WorkerConfig.connectingTo(address).withOptions(cluster.withIdentity("w1")));
                 Worker busy = Worker.start(WorkerConfig.connectingTo(address).withOptions(cluster.withIdentity("w2")));
                 Client client = Client.connect(file)) {
                assertThat(client.submit((Integer x) -> x + 1, 1).result()).isEqualTo(2);
                DaskFuture<Integer> pending = client.submit((Integer x) -> {
                    try {
                        Thread.sleep(600_000);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return x;
                }, 7);

                long killedNs = System.nanoTime();
                scheduler.destroyForcibly();   // SIGKILL

                worker.closed().get(BOUND.toSeconds(), TimeUnit.SECONDS);   // what makes WorkerMain exit
                busy.closed().get(BOUND.toSeconds(), TimeUnit.SECONDS);
                assertThatThrownBy(pending::result).hasMessageContaining("lost its connection to the scheduler");
                assertThatThrownBy(() -> client.submit((Integer x) -> x, 1).result())
                        .hasMessageContaining("scheduler");
                assertThat(Duration.ofNanos(System.nanoTime() - killedNs)).isLessThan(BOUND);
            }
        } finally {
            scheduler.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
