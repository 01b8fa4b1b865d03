package io.dask4j.runtime.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dask4j.comm.serialize.ClassAllowList;
import io.dask4j.comm.serialize.ClassNotAllowedException;
import io.dask4j.runtime.cluster.LocalCluster;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.example.usertasks.UserTasks;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Task classes outside the runtime run only where the user declared them, in-process (inproc) and in worker
 * processes (tcp, which get the list on their command line); undeclared, the task fails naming the class.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)   // a lost reply fails the test instead of hanging the build
class ClassAllowListClusterTest {

    private static final ClassAllowList USER_TASKS = ClassAllowList.parse("org.example.usertasks.*");

    private static LocalCluster cluster(boolean processes, ClassAllowList allowed) {
        return LocalCluster.builder().workers(1).threadsPerWorker(1).processes(processes).allowedClasses(allowed).start();
    }

    @ParameterizedTest(name = "processes={0}")
    @ValueSource(booleans = {false, true})
    void declaredTaskClassesRunAndTheirResultsComeBack(boolean processes) throws Exception {
        try (LocalCluster cluster = cluster(processes, USER_TASKS); Client client = cluster.client()) {
            assertThat(client.submit(UserTasks.scaleBy(3), 14).result(Duration.ofSeconds(60))).isEqualTo(42);
            assertThat(client.submit(UserTasks.params("p"), 2).result(Duration.ofSeconds(60)))
                    .isEqualTo(new UserTasks.Params("p", 2));
        }
    }

    @ParameterizedTest(name = "processes={0}")
    @ValueSource(booleans = {false, true})
    void anUndeclaredTaskClassFailsTheTaskNamingTheClass(boolean processes) throws Exception {
        try (LocalCluster cluster = cluster(processes, ClassAllowList.builtInOnly()); Client client = cluster.client()) {
            DaskFuture<Integer> f = client.submit(UserTasks.scaleBy(3), 14);
            assertThatThrownBy(() -> f.result(Duration.ofSeconds(60)))
                    .isInstanceOf(RemoteTaskException.class)
                    .hasMessageContaining(UserTasks.class.getName())
                    .satisfies(e -> assertThat(((RemoteTaskException) e).remoteType())
                            .isEqualTo(ClassNotAllowedException.class.getName()));
            // The worker serves on: a task of the runtime's own kind still runs.
            assertThat(client.submit((Integer x) -> x + 1, 1).result(Duration.ofSeconds(60))).isEqualTo(2);
        }
    }

    @ParameterizedTest(name = "processes={0}")
    @ValueSource(booleans = {false, true})
    void aClientThatDidNotDeclareAResultsClassRefusesIt(boolean processes) throws Exception {
        try (LocalCluster cluster = cluster(processes, USER_TASKS);
             Client strict = Client.connect(cluster.schedulerAddress(), cluster.options(),
                     ClassAllowList.builtInOnly().withClasses(UserTasks.class).with(ClassAllowList.parse("java.lang.Integer")))) {
            assertThat(strict.submit(UserTasks.scaleBy(2), 4).result(Duration.ofSeconds(60))).isEqualTo(8);
            try (Client builtIn = Client.connect(cluster.schedulerAddress(), cluster.options(),
                    ClassAllowList.builtInOnly())) {
                DaskFuture<UserTasks.Params> f = builtIn.submit(UserTasks.params("p"), 2);
                assertThatThrownBy(() -> f.result(Duration.ofSeconds(60)))
                        .isInstanceOf(ClassNotAllowedException.class)
                        .hasMessageContaining(UserTasks.Params.class.getName());
            }
        }
    }

    @ParameterizedTest(name = "processes={0}")
    @ValueSource(booleans = {false, true})
    void scatteringAValueOfAClassTheWorkersDoNotAllowFailsNamingItAndTheWorkerServesOn(boolean processes) throws Exception {
        try (LocalCluster cluster = cluster(processes, ClassAllowList.builtInOnly());
             Client client = Client.connect(cluster.schedulerAddress(), cluster.options(), USER_TASKS)) {
            assertThatThrownBy(() -> client.scatter(new UserTasks.Params("p", 1)))
                    .hasMessageContaining(UserTasks.Params.class.getName());
            assertThat(client.scatter(41).result(Duration.ofSeconds(60))).isEqualTo(41);
        }
    }
}
