package io.dask4j.runtime.client;

import io.dask4j.comm.CommClosedException;
import io.dask4j.runtime.cluster.LocalCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

/** A client whose scheduler goes away: every call fails promptly with a typed error, none waits for an answer. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ClientLosesSchedulerTest {

    @Test
    void afterTheSchedulerIsGoneCallsFailWithACommClosedExceptionInsteadOfWaiting() throws Exception {
        try (LocalCluster cluster = LocalCluster.builder().workers(1).threadsPerWorker(1).start()) {
            Client client = cluster.client();
            DaskFuture<Integer> finished = client.submit((Integer x) -> x * 10, 3);
            client.waitAll(List.of(finished), Duration.ofSeconds(30));   // done, its value still on the worker
            DaskFuture<Integer> pending = client.submit((Integer ms) -> {
                LockSupport.parkNanos(ms * 1_000_000L);
                return ms;
            }, 60_000);

            cluster.scheduler().close();

            assertThatThrownBy(() -> pending.result(Duration.ofSeconds(30))).isInstanceOf(RemoteTaskException.class)
                    .hasMessageContaining("lost its connection to the scheduler");
            assertThatThrownBy(() -> client.submit((Integer x) -> x, 1)).isInstanceOf(CommClosedException.class)
                    .hasMessageContaining("lost its connection to the scheduler");
            assertThatThrownBy(() -> client.scatter(5)).isInstanceOf(CommClosedException.class);
            // The finished value: fetched from its worker if that still serves, else an error naming the lost
            // connection (the future's own, if the scheduler reported the key lost as it went); never a wait.
            try {
                assertThat(finished.result(Duration.ofSeconds(30))).isEqualTo(30);
            } catch (CommClosedException | RemoteTaskException expected) {
                assertThat(expected).hasMessageContaining("lost its connection");
            } catch (TimeoutException e) {
                fail("gathering after the scheduler was lost waited for the deadline", e);
            }
            client.close();
        }
    }
}
