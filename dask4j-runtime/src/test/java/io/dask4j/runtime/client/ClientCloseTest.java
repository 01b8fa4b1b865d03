package io.dask4j.runtime.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.dask4j.runtime.cluster.LocalCluster;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What a client says as it closes: nothing when it closes cleanly, one line when its scheduler is gone. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClientCloseTest {

    /**
     * The scheduler answers the client's goodbye by closing the connection, which the client's reader sees
     * at once: before, it could see it before close() had marked the client closed, and warned "client
     * client-1 lost the scheduler: inproc comm ... is closed" on about 3 in 5 runs of MonteCarloPi.
     */
    @Test
    void aCleanCloseNeverReportsALostScheduler() {
        try (LogCapture log = LogCapture.of(Client.class)) {
            for (int i = 0; i < 200; i++) {
                try (Client client = LocalCluster.startClient(1, 1)) {
                    if (i % 20 == 0) {
                        assertThat(client.submit(() -> 6 * 7).result()).isEqualTo(42);
                    }
                }
            }
            assertThat(log.warnings()).noneMatch(line -> line.contains("lost the scheduler"));
        }
    }

    @Test
    void aLostSchedulerIsReportedInOneLineAndClosingAfterwardsAddsNothing() throws Exception {
        try (LogCapture log = LogCapture.of(Client.class);
             LocalCluster cluster = LocalCluster.builder().workers(1).threadsPerWorker(1).start()) {
            Client client = cluster.client();
            cluster.scheduler().close();
            Await.until("the client noticed", Duration.ofSeconds(30), () -> !log.warnings().isEmpty());
            client.close();
            List<String> lines = log.warnings();
            assertThat(lines).hasSize(1);
            assertThat(lines.getFirst()).startsWith("WARN client ").contains("lost the scheduler").doesNotContain("stack trace");
        }
    }
}
