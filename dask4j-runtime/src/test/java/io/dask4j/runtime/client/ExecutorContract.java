package io.dask4j.runtime.client;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The {@link ExecutorService} contract, point by point after the JSR-166 TCK's tests of {@code
 * AbstractExecutorService}, for {@link Client#executor()}; a subclass gives the client of one backend (inproc, tcp,
 * mpi). The cluster needs at least 2 task threads per worker: a test blocks at most two tasks at once and may need
 * a third to run beside them.
 *
 * <p>A blocked task waits on a <em>gate</em>, a file every rank of this machine sees, that {@link #openGate()}
 * creates after each test, so no task keeps a worker thread past its test (no sleeps: the tasks poll the file).
 */
public abstract class ExecutorContract {
    private static final Duration BOUND = Duration.ofSeconds(30);
    private static Path gates;

    private ExecutorService executor;
    private String gate;

    /** The client whose cluster runs the tasks; open for the whole class. */
    protected abstract Client client();

    @BeforeEach
    void newExecutor(TestInfo test) throws IOException {
        synchronized (ExecutorContract.class) {
            if (gates == null) {
                gates = Files.createTempDirectory("dask4j-executor-gates-");
            }
        }
        gate = gates.resolve(test.getTestMethod().orElseThrow().getName()).toString();
        executor = client().executor();
    }

    @AfterEach
    void openGate() throws IOException {
        executor.shutdownNow();
        Files.writeString(Path.of(gate), "open");
    }

    @AfterAll
    static void removeGates() throws IOException {
        if (gates != null) {
            try (Stream<Path> all = Files.walk(gates)) {
                all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
            gates = null;
        }
    }

    // ---- tasks ----------------------------------------------------------------------------------

    /** Returns {@code value} once the file {@code gate} exists (polled; bounded, so a lost gate frees the worker). */
    static <T> T afterGate(String gate, T value) {
        long deadline = System.nanoTime() + BOUND.toNanos() * 4;
        while (!Files.exists(Path.of(gate))) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("gate " + gate + " never opened");
            }
            LockSupport.parkNanos(1_000_000);
        }
        return value;
    }

    private SerializableCallable<String> blocked(String value) {
        String g = gate;
        return () -> afterGate(g, value);
    }

    private static SerializableCallable<String> quick(String value) {
        return () -> value;
    }

    private static SerializableCallable<String> failing(String message) {
        return () -> {
            throw new IllegalArgumentException(message);
        };
    }

    /** Waits until the task wrote {@code file}: it exists and has content (writeString creates it empty first). */
    private static void awaitFile(Path file) {
        long deadline = System.nanoTime() + BOUND.toNanos();
        while (!Files.exists(file) || file.toFile().length() == 0) {
            assertThat(System.nanoTime() - deadline).as("waiting for " + file).isNegative();
            LockSupport.parkNanos(1_000_000);
        }
    }

    private static String remoteTypeOf(ExecutionException e) {
        assertThat(e.getCause()).isInstanceOf(RemoteTaskException.class);
        return ((RemoteTaskException) e.getCause()).remoteType();
    }

    // ---- submit and execute ---------------------------------------------------------------------

    @Test
    void submitCallableGivesAFutureOfItsValue() throws Exception {
        Future<Integer> f = executor.submit((SerializableCallable<Integer>) () -> 6 * 7);
        assertThat(f.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isEqualTo(42);
        assertThat(f.isDone()).isTrue();
        assertThat(f.isCancelled()).isFalse();
    }

    @Test
    void submitRunnableGivesNullOrTheGivenResult() throws Exception {
        Future<?> plain = executor.submit((SerializableRunnable) () -> { });
        Future<String> withResult = executor.submit((SerializableRunnable) () -> { }, "done");
        assertThat(plain.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isNull();
        assertThat(withResult.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isEqualTo("done");
    }

    @Test
    void executeRunsTheRunnableOnTheCluster() throws IOException {
        String marker = gates.resolve("executed-" + System.nanoTime()).toString();
        executor.execute((SerializableRunnable) () -> {
            try {
                Files.writeString(Path.of(marker), "ran");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        awaitFile(Path.of(marker));
        assertThat(Files.readString(Path.of(marker))).isEqualTo("ran");
    }

    @Test
    void aTaskThatIsNotSerializableIsRejectedWithATypedErrorAndTheExecutorGoesOn() throws Exception {
        Runnable plainRunnable = () -> { };
        Callable<Integer> plainCallable = () -> 1;
        assertThatThrownBy(() -> executor.submit(plainRunnable)).isInstanceOf(TaskNotSerializableException.class)
                .hasMessageContaining("not Serializable");
        assertThatThrownBy(() -> executor.execute(plainRunnable)).isInstanceOf(TaskNotSerializableException.class);
        assertThatThrownBy(() -> executor.submit(plainCallable)).isInstanceOf(TaskNotSerializableException.class);
        assertThatThrownBy(() -> executor.invokeAll(List.of(plainCallable))).isInstanceOf(TaskNotSerializableException.class);
        assertThatThrownBy(() -> executor.submit((SerializableCallable<Integer>) () -> plainCallable.call() + 1))
                .isInstanceOf(TaskNotSerializableException.class).hasMessageContaining("cannot be serialized");
        assertThat(executor.submit(quick("still serving")).get(BOUND.toSeconds(), TimeUnit.SECONDS)).isEqualTo("still serving");
        executor.shutdown();
        assertThat(executor.awaitTermination(BOUND.toSeconds(), TimeUnit.SECONDS)).as("rejected tasks are not waited for").isTrue();
    }

    @Test
    void nullArgumentsThrowNullPointerException() {
        List<Callable<String>> withNull = Arrays.asList(quick("a"), null);
        assertThatThrownBy(() -> executor.submit((Callable<String>) null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> executor.submit((Runnable) null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> executor.submit(null, "x")).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> executor.execute(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> executor.invokeAll(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> executor.invokeAll(withNull)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> executor.invokeAll(List.of(quick("a")), 1, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> executor.invokeAny(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> executor.invokeAny(withNull)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> executor.invokeAny(List.of(quick("a")), 1, null)).isInstanceOf(NullPointerException.class);
    }

    // ---- futures --------------------------------------------------------------------------------

    @Test
    void aFailedTaskGivesAnExecutionExceptionNamingTheRemoteException() {
        Future<String> f = executor.submit(failing("bad input"));
        assertThatThrownBy(() -> f.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .satisfies(e -> assertThat(remoteTypeOf((ExecutionException) e)).isEqualTo(IllegalArgumentException.class.getName()))
                .hasMessageContaining("bad input");
        assertThat(f.isDone()).isTrue();
        assertThat(f.isCancelled()).isFalse();
    }

    @Test
    void cancelStopsAnUnfinishedTaskAndGetThenThrowsCancellation() {
        Future<String> f = executor.submit(blocked("never"));
        assertThat(f.cancel(true)).isTrue();
        assertThat(f.isCancelled()).isTrue();
        assertThat(f.isDone()).isTrue();
        assertThat(f.cancel(true)).as("a second cancel").isFalse();
        assertThatThrownBy(f::get).isInstanceOf(CancellationException.class);
        assertThatThrownBy(() -> f.get(1, TimeUnit.SECONDS)).isInstanceOf(CancellationException.class);
    }

    @Test
    void cancelAfterCompletionReturnsFalseAndKeepsTheValue() throws Exception {
        Future<String> f = executor.submit(quick("kept"));
        assertThat(f.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isEqualTo("kept");
        assertThat(f.cancel(true)).isFalse();
        assertThat(f.isCancelled()).isFalse();
        assertThat(f.get()).isEqualTo("kept");
    }

    @Test
    void timedGetOfABlockedTaskThrowsTimeoutException() {
        Future<String> f = executor.submit(blocked("late"));
        assertThatThrownBy(() -> f.get(50, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
        assertThat(f.isDone()).isFalse();
    }

    // ---- invokeAll and invokeAny ------------------------------------------------------------------

    @Test
    void invokeAllReturnsDoneFuturesInTheTasksOrder() throws Exception {
        List<Future<String>> fs = executor.invokeAll(List.of(quick("a"), failing("b"), quick("c")));
        assertThat(fs).hasSize(3).allSatisfy(f -> assertThat(f.isDone()).isTrue());
        assertThat(fs.get(0).get()).isEqualTo("a");
        assertThatThrownBy(() -> fs.get(1).get()).isInstanceOf(ExecutionException.class);
        assertThat(fs.get(2).get()).isEqualTo("c");
        assertThat(executor.invokeAll(List.of())).isEmpty();
    }

    @Test
    void invokeAllWithATimeoutCancelsTheTasksNotDone() throws Exception {
        // The blocked task holds invokeAll for the whole timeout, so the test takes that long; 3 s leaves the quick
        // task room on a loaded CI machine (a first task over tcp or mpi may take a few hundred ms there).
        List<Future<String>> fs = executor.invokeAll(List.of(quick("fast"), blocked("slow")), 3, TimeUnit.SECONDS);
        assertThat(fs).hasSize(2).allSatisfy(f -> assertThat(f.isDone()).isTrue());
        assertThat(fs.get(0).get()).isEqualTo("fast");
        assertThat(fs.get(1).isCancelled()).isTrue();
        assertThatThrownBy(() -> fs.get(1).get()).isInstanceOf(CancellationException.class);
    }

    @Test
    void invokeAnyReturnsAFinishedResultAndCancelsTheRest() throws Exception {
        assertThat(executor.invokeAny(List.of(blocked("slow"), failing("x"), quick("fast")))).isEqualTo("fast");
        executor.shutdown();
        // The blocked task holds the executor open until it is cancelled; its gate is still closed.
        assertThat(executor.awaitTermination(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void invokeAnyThrowsExecutionExceptionWhenEveryTaskFails() {
        assertThatThrownBy(() -> executor.invokeAny(List.of(failing("one"), failing("two"))))
                .isInstanceOf(ExecutionException.class)
                .satisfies(e -> assertThat(remoteTypeOf((ExecutionException) e)).isEqualTo(IllegalArgumentException.class.getName()));
    }

    @Test
    void invokeAnyOfNoTasksThrowsIllegalArgumentException() {
        assertThatThrownBy(() -> executor.invokeAny(List.of())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> executor.invokeAny(List.of(), 1, TimeUnit.SECONDS)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void invokeAnyWithATimeoutThrowsTimeoutExceptionWhenNoTaskFinishesAndCancelsThem() throws Exception {
        assertThatThrownBy(() -> executor.invokeAny(List.of(blocked("a")), 100, TimeUnit.MILLISECONDS))
                .isInstanceOf(TimeoutException.class);
        executor.shutdown();
        assertThat(executor.awaitTermination(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
    }

    // ---- lifecycle ------------------------------------------------------------------------------

    @Test
    void aNewExecutorIsNeitherShutDownNorTerminated() {
        assertThat(executor.isShutdown()).isFalse();
        assertThat(executor.isTerminated()).isFalse();
    }

    @Test
    void afterShutdownEveryWayOfSubmittingIsRejected() {
        executor.shutdown();
        assertThat(executor.isShutdown()).isTrue();
        assertThatThrownBy(() -> executor.submit(quick("x"))).isInstanceOf(RejectedExecutionException.class);
        assertThatThrownBy(() -> executor.submit((SerializableRunnable) () -> { })).isInstanceOf(RejectedExecutionException.class);
        assertThatThrownBy(() -> executor.execute((SerializableRunnable) () -> { })).isInstanceOf(RejectedExecutionException.class);
        assertThatThrownBy(() -> executor.invokeAll(List.of(quick("x")))).isInstanceOf(RejectedExecutionException.class);
        assertThatThrownBy(() -> executor.invokeAny(List.of(quick("x")))).isInstanceOf(RejectedExecutionException.class);
    }

    @Test
    void shutdownWithNoTasksTerminatesAtOnce() throws Exception {
        executor.shutdown();
        assertThat(executor.isTerminated()).isTrue();
        assertThat(executor.awaitTermination(0, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void awaitTerminationWithoutShutdownWaitsTheTimeoutAndReturnsFalse() throws Exception {
        assertThat(executor.awaitTermination(20, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(executor.isTerminated()).isFalse();
    }

    @Test
    void shutdownLetsAcceptedTasksFinishThenTerminates() throws Exception {
        Future<String> f = executor.submit(blocked("finished after shutdown"));
        executor.shutdown();
        assertThat(executor.awaitTermination(50, TimeUnit.MILLISECONDS)).as("a task still runs").isFalse();
        assertThat(executor.isTerminated()).isFalse();
        Files.writeString(Path.of(gate), "open");
        assertThat(executor.awaitTermination(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(executor.isTerminated()).isTrue();
        assertThat(f.get()).isEqualTo("finished after shutdown");
    }

    @Test
    void shutdownNowCancelsUnfinishedTasksAndReturnsThem() throws Exception {
        SerializableCallable<String> first = blocked("one");
        String g = gate;
        SerializableRunnable second = () -> afterGate(g, "two");
        Future<String> a = executor.submit(first);
        Future<?> b = executor.submit(second);
        List<Runnable> cancelled = executor.shutdownNow();
        assertThat(cancelled).hasSize(2).contains(second);
        assertThat(cancelled).filteredOn(r -> r instanceof FutureTask<?>).hasSize(1);
        assertThat(a.isCancelled()).isTrue();
        assertThat(b.isCancelled()).isTrue();
        assertThat(executor.isShutdown()).isTrue();
        assertThat(executor.awaitTermination(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThatThrownBy(() -> executor.submit(quick("x"))).isInstanceOf(RejectedExecutionException.class);
    }

    @Test
    void shuttingDownAnExecutorLeavesTheClientAndItsOtherExecutorsServing() throws Exception {
        ExecutorService other = client().executor();
        executor.shutdownNow();
        assertThat(other.submit((SerializableCallable<String>) () -> "other").get(BOUND.toSeconds(), TimeUnit.SECONDS)).isEqualTo("other");
        assertThat(client().submit(() -> "client").result(BOUND)).isEqualTo("client");
        other.shutdown();
    }

    @Test
    void closeWaitsForAcceptedTasks() throws Exception {
        List<Future<Integer>> fs = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            int n = i;
            fs.add(executor.submit((SerializableCallable<Integer>) () -> n * n));
        }
        executor.close();
        assertThat(executor.isTerminated()).isTrue();
        assertThat(fs).allSatisfy(f -> assertThat(f.isDone()).isTrue());
        assertThat(fs.get(4).get()).isEqualTo(16);
    }

    /** A serializable task type that is not a lambda: a named class travels the same way. */
    record Square(int n) implements Callable<Integer>, Serializable {
        @Override
        public Integer call() {
            return n * n;
        }
    }

    @Test
    void aSerializableCallableClassRunsLikeALambda() throws Exception {
        assertThat(executor.invokeAll(List.of(new Square(3), new Square(4))).stream().map(f -> {
            try {
                return f.get();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }).toList()).containsExactly(9, 16);
    }
}
