package io.dask4j.runtime.client;

import io.dask4j.comm.serialize.ClassAllowList;
import io.dask4j.comm.serialize.ClassNotAllowedException;
import io.dask4j.runtime.cluster.LocalCluster;
import org.example.usercallables.Product;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * An executor's task classes obey the cluster's class allow-list like any task: declared, a user's Callable runs
 * in-process and in worker processes; undeclared, its future fails naming the class and the executor goes on.
 */
@Timeout(120)
class ExecutorAllowListTest {

    private static LocalCluster cluster(boolean processes, ClassAllowList allowed) {
        return LocalCluster.builder().workers(1).threadsPerWorker(1).processes(processes).allowedClasses(allowed).start();
    }

    @ParameterizedTest(name = "processes={0}")
    @ValueSource(booleans = {false, true})
    void aDeclaredCallableClassRuns(boolean processes) throws Exception {
        try (LocalCluster cluster = cluster(processes, ClassAllowList.parse("org.example.usercallables.*"));
             Client client = cluster.client(); ExecutorService pool = client.executor()) {
            assertThat(pool.submit(new Product(6, 7)).get(60, TimeUnit.SECONDS)).isEqualTo(42);
            assertThat(pool.invokeAny(List.of(new Product(2, 3)))).isEqualTo(6);
        }
    }

    @ParameterizedTest(name = "processes={0}")
    @ValueSource(booleans = {false, true})
    void anUndeclaredCallableClassFailsItsFutureNamingTheClass(boolean processes) throws Exception {
        try (LocalCluster cluster = cluster(processes, ClassAllowList.builtInOnly());
             Client client = cluster.client(); ExecutorService pool = client.executor()) {
            assertThatThrownBy(() -> pool.submit(new Product(6, 7)).get(60, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .hasMessageContaining(Product.class.getName())
                    .satisfies(e -> assertThat(((RemoteTaskException) e.getCause()).remoteType())
                            .isEqualTo(ClassNotAllowedException.class.getName()));
            assertThatThrownBy(() -> pool.invokeAny(List.of(new Product(1, 1)))).isInstanceOf(ExecutionException.class);
            assertThat(pool.submit((SerializableCallable<String>) () -> "runtime's own").get(60, TimeUnit.SECONDS))
                    .isEqualTo("runtime's own");
        }
    }
}
