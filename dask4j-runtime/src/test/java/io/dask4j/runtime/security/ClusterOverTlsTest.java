package io.dask4j.runtime.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dask4j.comm.Address;
import io.dask4j.comm.CommClosedException;
import io.dask4j.comm.CommOptions;
import io.dask4j.comm.SelfSignedTls;
import io.dask4j.comm.TlsException;
import io.dask4j.comm.TlsMaterial;
import io.dask4j.comm.TlsOptions;
import io.dask4j.runtime.client.Client;
import io.dask4j.runtime.client.DaskFuture;
import io.dask4j.runtime.cluster.LocalCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@link LocalCluster} over {@code tls://}: it computes (tasks whose inputs live on other workers included, so
 * worker-to-worker traffic goes over TLS too), in-JVM and with worker processes, and refuses clients without TLS or
 * without a certificate it trusts.
 */
@Timeout(120)
class ClusterOverTlsTest {

    @TempDir
    Path dir;

    @Test
    void anInProcessClusterComputesOverTlsAndRefusesOutsiders() {
        try (LocalCluster cluster = LocalCluster.builder().workers(2).transport("tls").start();
             Client client = cluster.client()) {
            assertThat(cluster.schedulerAddress().scheme()).isEqualTo("tls");
            assertThat(cluster.scheduler().snapshot().workers())
                    .allSatisfy(w -> assertThat(w.addresses().getFirst()).startsWith("tls://"));
            assertThat(cluster.options().tls().mutualAuth()).as("a made-up certificate is used with mutual TLS").isTrue();
            computes(client);

            Address plain = Address.tcp("127.0.0.1", cluster.schedulerAddress().port());
            CommOptions withSecret = CommOptions.fromEnvironment(java.util.Map.of()).withSecret(cluster.options().secret())
                    .withConnectTimeout(Duration.ofSeconds(5));
            assertThatThrownBy(() -> Client.connect(plain, withSecret)).isInstanceOf(CommClosedException.class);

            TlsMaterial stranger = SelfSignedTls.create(dir.resolve("stranger")).keyStores();
            assertThatThrownBy(() -> Client.connect(cluster.schedulerAddress(), withSecret.withTls(TlsOptions.of(stranger))))
                    .isInstanceOf(TlsException.class).hasMessageContaining("not trusted");

            // The scheduler keeps serving its own.
            try (Client again = cluster.client()) {
                assertThat(again.submit((Integer x) -> x * 3, 14).result()).isEqualTo(42);
            }
        }
    }

    @Test
    void workerProcessesJoinOverTlsWithTheClustersCertificate() {
        Path certificateDirectory;
        try (LocalCluster cluster = LocalCluster.builder().workers(2).processes(true).transport("tls").start();
             Client client = cluster.client()) {
            assertThat(cluster.scheduler().snapshot().workers()).hasSize(2)
                    .allSatisfy(w -> assertThat(w.addresses().getFirst()).startsWith("tls://"));
            computes(client);
            TlsMaterial.KeyStores stores = (TlsMaterial.KeyStores) cluster.options().tls().material();
            certificateDirectory = stores.keyStore().getParent();
            assertThat(certificateDirectory).exists();
        }
        assertThat(Files.exists(certificateDirectory)).as("the made-up certificate goes with the cluster").isFalse();
    }

    private static void computes(Client client) {
        List<DaskFuture<Integer>> squares = client.map(x -> x * x, List.of(1, 2, 3, 4, 5, 6));
        assertThat(client.gather(squares)).containsExactly(1, 4, 9, 16, 25, 36);
        // A task whose inputs the scheduler spread over both workers: one of them fetches the other's over tls.
        List<DaskFuture<double[]>> parts = client.scatter(List.of(new double[] {1, 2}, new double[] {3, 4}));
        DaskFuture<Double> dot = client.submit((double[] x, double[] y) -> x[0] * y[0] + x[1] * y[1],
                parts.get(0), parts.get(1));
        assertThat(dot.result()).isEqualTo(11.0);
    }
}
