package io.dask4j.runtime.scheduler;

import io.dask4j.comm.Message;
import io.dask4j.comm.ProtocolException;
import io.dask4j.runtime.protocol.Ops;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Drives the scheduler's state machine by hand: messages in, messages out, no threads or comms. */
class SchedulerStateTest {
    private SchedulerState state;
    private final List<Message> toA = new ArrayList<>();
    private final List<Message> toB = new ArrayList<>();
    private final List<Message> toClient = new ArrayList<>();
    private WorkerState a;
    private WorkerState b;
    private ClientState client;

    @BeforeEach
    void setUp() {
        state = new SchedulerState(1, 0);   // no unused function kept: each is forgotten at once
        a = state.addWorker(register("tcp://a:1", 1), toA::add, 0, 1000);
        b = state.addWorker(register("tcp://b:1", 1), toB::add, 0, 1000);
        client = state.addClient("client-1", "tcp", toClient::add);
        toA.clear();
        toB.clear();
        toClient.clear();
    }

    private static Message register(String address, int threads) {
        return Message.of(Ops.REGISTER_WORKER, Map.of("addresses", List.of(address), "nthreads", threads, "memory_limit", 0));
    }

    /** An update-graph of (key, deps...) rows, wanting {@code wants}. */
    private void submit(List<List<String>> rows, List<String> wants) {
        submit(client, rows, wants, true);
    }

    /** The same from {@code from}, with the bytes of the function fn-1 or naming it only. */
    private void submit(ClientState from, List<List<String>> rows, List<String> wants, boolean withFunctionBytes) {
        List<Object> keys = new ArrayList<>();
        List<Object> fns = new ArrayList<>();
        List<Object> args = new ArrayList<>();
        List<Object> deps = new ArrayList<>();
        for (List<String> row : rows) {
            keys.add(row.getFirst());
            fns.add("fn-1");
            args.add(new byte[]{1});
            deps.add(new ArrayList<Object>(row.subList(1, row.size())));
        }
        Map<String, Object> f = new HashMap<>();
        f.put("keys", keys);
        f.put("fns", fns);
        f.put("args", args);
        f.put("deps", deps);
        f.put("wants", wants);
        if (withFunctionBytes) {
            f.put("functions", Map.of("fn-1", new byte[]{9}));
        }
        state.onClientMessage(from, Message.of(Ops.UPDATE_GRAPH, f));
        state.assign();
    }

    private static List<String> computed(List<Message> out) {
        List<String> keys = new ArrayList<>();
        for (Message m : out) {
            if (m.op().equals(Ops.COMPUTE_TASKS)) {
                m.getList("keys").forEach(k -> keys.add((String) k));
            }
        }
        return keys;
    }

    private static List<String> freed(List<Message> out) {
        List<String> keys = new ArrayList<>();
        for (Message m : out) {
            if (m.op().equals(Ops.FREE_KEYS)) {
                m.getList("keys").forEach(k -> keys.add((String) k));
            }
        }
        return keys;
    }

    private void finish(WorkerState w, String key, long nbytes) {
        TaskState t = state.tx.tasks.get(key);
        state.onWorkerMessage(w, Message.of(Ops.TASKS_FINISHED, Map.of("keys", List.of(key), "runs", List.of((long) t.runId),
                "nbytes", List.of(nbytes))), 0);
        state.assign();
    }

    /** {@code w} reports that {@code key}'s current run threw an IllegalStateException with {@code message}. */
    private void fail(WorkerState w, String key, String message) {
        TaskState t = state.tx.tasks.get(key);
        Map<String, Object> f = new HashMap<>(io.dask4j.runtime.protocol.ErrorInfo.simple(key, "java.lang.IllegalStateException", message).toFields());
        f.put("key", key);
        f.put("run", t.runId);
        state.onWorkerMessage(w, Message.of(Ops.TASK_ERRED, f), 0);
        state.assign();
    }

    private TaskStatus status(String key) {
        TaskState t = state.tx.tasks.get(key);
        return t == null ? TaskStatus.FORGOTTEN : t.status;
    }

    @Test
    void aTaskWithoutInputsIsSentToTheLeastOccupiedWorker() {
        submit(List.of(List.of("x")), List.of("x"));
        assertThat(computed(toA)).containsExactly("x");
        assertThat(computed(toB)).isEmpty();
        assertThat(status("x")).isEqualTo(TaskStatus.PROCESSING);
    }

    @Test
    void theFunctionTravelsToAWorkerOnlyOnce() {
        submit(List.of(List.of("x"), List.of("y"), List.of("z")), List.of("x", "y", "z"));
        Message m = toA.stream().filter(x -> x.op().equals(Ops.COMPUTE_TASKS)).findFirst().orElseThrow();
        assertThat(m.getList("fnbs").stream().filter(o -> o != null).count()).isEqualTo(1);
    }

    private static List<Object> ids(List<Message> out, String op) {
        List<Object> ids = new ArrayList<>();
        for (Message m : out) {
            if (m.op().equals(op)) {
                ids.addAll(m.getList("ids"));
            }
        }
        return ids;
    }

    private void release(ClientState from, String key) {
        state.onClientMessage(from, Message.of(Ops.RELEASE_KEYS, Map.of("keys", List.of(key))));
        state.assign();
    }

    private void answerForget(ClientState from) {
        state.onClientMessage(from, Message.of(Ops.FUNCTIONS_FORGOTTEN, Map.of("ids", List.of("fn-1"))));
        state.assign();
    }

    private int functionsHeld() {
        return state.snapshot(0, 0).functionsHeld();
    }

    @Test
    void aFunctionNoTaskRunsIsDroppedOnceItsClientAnswersAndItsWorkersAreToldToo() {
        submit(List.of(List.of("x")), List.of("x"));
        WorkerState runner = state.tx.tasks.get("x").processingOn;
        List<Message> toRunner = runner == a ? toA : toB;
        finish(runner, "x", 8);
        toClient.clear();
        release(client, "x");
        assertThat(ids(toClient, Ops.FORGET_FUNCTIONS)).containsExactly("fn-1");
        assertThat(functionsHeld()).as("kept until the client answers").isEqualTo(1);
        assertThat(ids(toRunner, Ops.FREE_FUNCTIONS)).isEmpty();

        answerForget(client);
        assertThat(functionsHeld()).isZero();
        assertThat(ids(toRunner, Ops.FREE_FUNCTIONS)).containsExactly("fn-1");
        assertThat(ids(runner == a ? toB : toA, Ops.FREE_FUNCTIONS)).as("the worker that never had it").isEmpty();
        assertThatThrownBy(() -> submit(client, List.of(List.of("y")), List.of("y"), false))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("unknown function fn-1");

        toA.clear();
        toB.clear();
        submit(List.of(List.of("y")), List.of("y"));
        Message compute = java.util.stream.Stream.concat(toA.stream(), toB.stream())
                .filter(m -> m.op().equals(Ops.COMPUTE_TASKS)).findFirst().orElseThrow();
        assertThat(compute.getList("fnbs").getFirst()).as("the bytes travel to the worker again").isInstanceOf(byte[].class);
    }

    @Test
    void aTaskNamingTheFunctionBeforeTheAnswerKeepsItUntilItTooIsForgotten() {
        submit(List.of(List.of("x")), List.of("x"));
        finish(state.tx.tasks.get("x").processingOn, "x", 8);
        release(client, "x");
        submit(client, List.of(List.of("y")), List.of("y"), false);   // sent before the client saw the request
        answerForget(client);
        assertThat(status("y")).isEqualTo(TaskStatus.PROCESSING);
        assertThat(functionsHeld()).isEqualTo(1);
        assertThat(ids(toA, Ops.FREE_FUNCTIONS)).isEmpty();
        assertThat(ids(toB, Ops.FREE_FUNCTIONS)).isEmpty();

        // The client forgot it: y's function counts on no client now, and goes with y without another question.
        toClient.clear();
        finish(state.tx.tasks.get("y").processingOn, "y", 8);
        release(client, "y");
        assertThat(ids(toClient, Ops.FORGET_FUNCTIONS)).isEmpty();
        assertThat(functionsHeld()).isZero();
    }

    @Test
    void aFunctionTwoClientsSentStaysUntilBothHaveForgottenIt() {
        List<Message> toOther = new ArrayList<>();
        ClientState other = state.addClient("client-2", "tcp", toOther::add);
        submit(List.of(List.of("x")), List.of("x"));
        submit(other, List.of(List.of("y")), List.of("y"), true);
        for (String k : List.of("x", "y")) {
            finish(state.tx.tasks.get(k).processingOn, k, 8);
        }
        release(client, "x");
        release(other, "y");
        assertThat(ids(toClient, Ops.FORGET_FUNCTIONS)).containsExactly("fn-1");
        assertThat(ids(toOther, Ops.FORGET_FUNCTIONS)).containsExactly("fn-1");
        answerForget(client);
        assertThat(functionsHeld()).isEqualTo(1);
        state.removeClient(other);   // gone without answering
        assertThat(functionsHeld()).isZero();
    }

    @Test
    void aFinishedTaskIsReportedToTheClientThatWantsIt() {
        submit(List.of(List.of("x")), List.of("x"));
        finish(a, "x", 8);
        assertThat(status("x")).isEqualTo(TaskStatus.MEMORY);
        Message m = toClient.getLast();
        assertThat(m.op()).isEqualTo(Ops.KEYS_IN_MEMORY);
        assertThat(m.getList("keys")).containsExactly("x");
        assertThat(m.getList("workers")).containsExactly(0L);
        assertThat(m.getList("workers_dict")).containsExactly("tcp://a:1");
    }

    @Test
    void aDependentGoesToTheWorkerHoldingMostInputBytes() {
        submit(List.of(List.of("small"), List.of("big")), List.of("small", "big"));
        // small went to a, big to b (least occupied)
        finish(a, "small", 10);
        finish(b, "big", 10_000);
        toA.clear();
        toB.clear();
        submit(List.of(List.of("sum", "small", "big")), List.of("sum"));
        assertThat(computed(toB)).containsExactly("sum");
        Message m = toB.getLast();
        @SuppressWarnings("unchecked")
        Map<String, Object> deps = (Map<String, Object>) m.getList("deps").getFirst();
        assertThat(deps).containsEntry("small", List.of("tcp://a:1")).containsEntry("big", List.of("tcp://b:1"));
    }

    @Test
    void aTaskWaitsForItsInputsThenRuns() {
        submit(List.of(List.of("x"), List.of("y", "x")), List.of("y"));
        assertThat(status("y")).isEqualTo(TaskStatus.WAITING);
        finish(a, "x", 8);
        assertThat(status("y")).isEqualTo(TaskStatus.PROCESSING);
        finish(a, "y", 8);
        // x is no longer needed by anyone: freed on its worker, kept as released while y refers to it
        assertThat(freed(toA)).contains("x");
        assertThat(status("x")).isEqualTo(TaskStatus.RELEASED);
    }

    @Test
    void rootTasksOfOneGraphAreSplitInContiguousBlocks() {
        List<List<String>> rows = new ArrayList<>();
        List<String> wants = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            rows.add(List.of("leaf-" + i));
            wants.add("leaf-" + i);
        }
        submit(rows, wants);
        assertThat(computed(toA)).containsExactly("leaf-0", "leaf-1", "leaf-2", "leaf-3");
        assertThat(computed(toB)).containsExactly("leaf-4", "leaf-5", "leaf-6", "leaf-7");
    }

    @Test
    void placementRespectsThreadCounts() {
        List<Message> toC = new ArrayList<>();
        state.addWorker(register("tcp://c:1", 6), toC::add, 0, 1000);
        List<List<String>> rows = new ArrayList<>();
        List<String> wants = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            rows.add(List.of("t-" + i));
            wants.add("t-" + i);
        }
        submit(rows, wants);
        assertThat(computed(toC)).hasSize(12);
        assertThat(computed(toA)).hasSize(2);
        assertThat(computed(toB)).hasSize(2);
    }

    @Test
    void anErredTaskErrsItsDependentsWithTheSameCause() {
        submit(List.of(List.of("x"), List.of("y", "x"), List.of("z", "y")), List.of("z"));
        fail(a, "x", "boom");
        assertThat(status("x")).isEqualTo(TaskStatus.ERRED);
        assertThat(status("z")).isEqualTo(TaskStatus.ERRED);
        Message m = toClient.getLast();
        assertThat(m.op()).isEqualTo(Ops.TASK_ERRED);
        assertThat(m.getString("key")).isEqualTo("z");
        assertThat(m.getString("ekey")).isEqualTo("x");
        assertThat(m.getString("emsg")).isEqualTo("boom");
    }

    /**
     * Cascades iterate: a chain of 20,000 tasks errs and is then released and forgotten on a thread whose stack
     * (256 KiB) a recursion one frame per task deep would overflow, as a transport's delivery thread runs the state
     * machine when the loop is free.
     */
    @Test
    void aLongChainErrsAndIsForgottenOnASmallStack() throws Exception {
        int length = 20_000;
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("c0"));
        for (int i = 1; i < length; i++) {
            rows.add(List.of("c" + i, "c" + (i - 1)));
        }
        Throwable[] failure = new Throwable[1];
        Thread small = new Thread(null, () -> {
            try {
                submit(rows, List.of("c" + (length - 1)));
                fail(a, "c0", "boom");
                assertThat(status("c" + (length - 1))).isEqualTo(TaskStatus.ERRED);
                state.onClientMessage(client, Message.of(Ops.RELEASE_KEYS, Map.of("keys", List.of("c" + (length - 1)))));
                state.assign();
            } catch (Throwable t) {
                failure[0] = t;
            }
        }, "small-stack", 256 << 10);
        small.start();
        small.join();
        assertThat(failure[0]).isNull();
        assertThat(state.tx.tasks).isEmpty();
        assertThat(state.tx.counts().get(TaskStatus.ERRED)).isZero();
    }

    @Test
    void releasedKeysAreFreedOnWorkersAndForgotten() {
        submit(List.of(List.of("x")), List.of("x"));
        finish(a, "x", 8);
        state.onClientMessage(client, Message.of(Ops.RELEASE_KEYS, Map.of("keys", List.of("x"))));
        state.assign();
        assertThat(freed(toA)).containsExactly("x");
        assertThat(status("x")).isEqualTo(TaskStatus.FORGOTTEN);
        assertThat(state.tx.tasks).isEmpty();
    }

    @Test
    void aDisconnectedClientHasItsKeysReleased() {
        submit(List.of(List.of("x"), List.of("y")), List.of("x", "y"));
        finish(a, "x", 8);
        state.removeClient(client);
        state.assign();
        assertThat(state.tx.tasks).isEmpty();
        assertThat(freed(toA)).contains("x");
        assertThat(freed(toB)).contains("y");
    }

    @Test
    void aLostWorkersRunningTasksAreRescheduledAndItsResultsRecomputed() {
        submit(List.of(List.of("x"), List.of("y"), List.of("z", "x", "y")), List.of("z"));
        finish(a, "x", 8);
        // y is processing on b; x lives on a; now a dies
        state.removeWorker(a);
        state.assign();
        assertThat(status("x")).isEqualTo(TaskStatus.PROCESSING);
        assertThat(computed(toB)).contains("x");
        assertThat(state.tx.tasks.get("x").processingOn).isSameAs(b);
        assertThat(status("z")).isEqualTo(TaskStatus.WAITING);
    }

    @Test
    void aTaskThatKillsTooManyWorkersIsMarkedErred() {
        submit(List.of(List.of("bomb")), List.of("bomb"));
        state.removeWorker(a);
        state.assign();
        assertThat(status("bomb")).isEqualTo(TaskStatus.PROCESSING);
        state.removeWorker(b);
        state.assign();
        assertThat(status("bomb")).isEqualTo(TaskStatus.ERRED);
        assertThat(toClient.getLast().getString("etype")).contains("KilledWorker");
    }

    @Test
    void aStaleResultFromAnEarlierRunIsIgnored() {
        submit(List.of(List.of("x")), List.of("x"));
        int firstRun = state.tx.tasks.get("x").runId;
        state.removeWorker(a);
        state.assign();
        state.onWorkerMessage(b, Message.of(Ops.TASKS_FINISHED, Map.of("keys", List.of("x"), "runs", List.of((long) firstRun),
                "nbytes", List.of(8L))), 0);
        assertThat(status("x")).isEqualTo(TaskStatus.PROCESSING);
    }

    @Test
    void tasksWaitForAWorkerWhenThereIsNone() {
        state.removeWorker(a);
        state.removeWorker(b);
        submit(List.of(List.of("x")), List.of("x"));
        assertThat(status("x")).isEqualTo(TaskStatus.WAITING);
        List<Message> toC = new ArrayList<>();
        state.addWorker(register("tcp://c:1", 1), toC::add, 0, 1000);
        state.assign();
        assertThat(computed(toC)).containsExactly("x");
    }

    @Test
    void anUnknownOpIsAProtocolError() {
        assertThatThrownBy(() -> state.onClientMessage(client, Message.of("frobnicate")))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("frobnicate");
        assertThatThrownBy(() -> state.onWorkerMessage(a, Message.of("frobnicate"), 0))
                .isInstanceOf(ProtocolException.class);
    }

    @Test
    void aMessageMissingFieldsIsAProtocolError() {
        assertThatThrownBy(() -> state.onClientMessage(client, Message.of(Ops.UPDATE_GRAPH, Map.of("keys", List.of("x")))))
                .isInstanceOf(ProtocolException.class);
        assertThat(state.tx.tasks).isEmpty();
    }

    @Test
    void aGraphReferringToAnUnknownKeyErrsThatTask() {
        submit(List.of(List.of("y", "nowhere")), List.of("y"));
        assertThat(status("y")).isEqualTo(TaskStatus.ERRED);
        assertThat(toClient.getLast().getString("emsg")).contains("does not know");
    }

    /** Task z, processing, over inputs x (in memory on a) and y (on b): one of them lives on the other worker. */
    private TaskState zOverXOnAAndYOnB() {
        submit(List.of(List.of("x"), List.of("y")), List.of("x", "y"));
        finish(a, "x", 8);
        finish(b, "y", 8);
        submit(List.of(List.of("z", "x", "y")), List.of("z"));
        return state.tx.tasks.get("z");
    }

    @Test
    void missingInputDataIsRecomputedAndTheTaskRescheduled() {
        TaskState z = zOverXOnAAndYOnB();
        WorkerState runner = z.processingOn;
        WorkerState other = runner == a ? b : a;
        String dep = runner == a ? "y" : "x";
        state.onWorkerMessage(runner, Message.of(Ops.MISSING_DATA, Map.of("key", "z", "run", z.runId, "dep", dep,
                "from", other.id)), 0);
        state.assign();
        assertThat(status(dep)).isEqualTo(TaskStatus.PROCESSING);
        assertThat(status("z")).isEqualTo(TaskStatus.WAITING);
    }

    @Test
    void aLiveHolderThatCouldNotBeReachedIsToldToDropItsUncountedCopyBeforeAnyRecompute() {
        TaskState z = zOverXOnAAndYOnB();
        WorkerState runner = z.processingOn;
        WorkerState other = runner == a ? b : a;
        List<Message> toOther = other == a ? toA : toB;
        String dep = runner == a ? "y" : "x";
        String runnersOwn = runner == a ? "x" : "y";
        submit(List.of(List.of("busy", runnersOwn)), List.of("busy"));   // keeps the runner the busier worker
        assertThat(state.tx.tasks.get("busy").processingOn).isSameAs(runner);
        toA.clear();
        toB.clear();
        state.onWorkerMessage(runner, Message.of(Ops.MISSING_DATA, Map.of("key", "z", "run", z.runId, "dep", dep,
                "from", other.id)), 0);
        state.assign();
        assertThat(state.tx.tasks.get(dep).processingOn).as("recomputed on the holder that was not reached").isSameAs(other);
        assertThat(freed(toOther)).contains(dep);
        int freedAt = -1;
        int computedAt = Integer.MAX_VALUE;
        for (int i = 0; i < toOther.size(); i++) {
            Message m = toOther.get(i);
            if (m.op().equals(Ops.FREE_KEYS) && m.getList("keys").contains(dep)) {
                freedAt = i;
            } else if (m.op().equals(Ops.COMPUTE_TASKS) && m.getList("keys").contains(dep)) {
                computedAt = Math.min(computedAt, i);
            }
        }
        assertThat(computedAt).isLessThan(Integer.MAX_VALUE);
        assertThat(freedAt).as("the stale copy is dropped before the holder is asked to recompute it").isLessThan(computedAt);
    }

    @Test
    void anUnreachableHolderKeepsACopyItsOwnRunningTaskReads() {
        for (WorkerState w : List.of(a, b)) {
            state.onClientMessage(client, Message.of(Ops.UPDATE_DATA, Map.of("keys", List.of("s"), "nbytes", List.of(8L),
                    "worker", w.id)));
        }
        submit(List.of(List.of("u1", "s"), List.of("u2", "s")), List.of("u1", "u2"));
        TaskState u1 = state.tx.tasks.get("u1");
        TaskState u2 = state.tx.tasks.get("u2");
        assertThat(u1.processingOn).as("one task per single-threaded worker").isNotSameAs(u2.processingOn);
        WorkerState reporter = u1.processingOn;
        WorkerState holder = u2.processingOn;
        toA.clear();
        toB.clear();
        state.onWorkerMessage(reporter, Message.of(Ops.MISSING_DATA, Map.of("key", "u1", "run", u1.runId, "dep", "s",
                "from", holder.id)), 0);
        state.assign();
        assertThat(state.tx.tasks.get("s").holders).containsExactly(reporter);
        assertThat(freed(holder == a ? toA : toB)).doesNotContain("s");
        assertThat(u2.processingOn).isSameAs(holder);
        Message moved = toClient.getLast();
        assertThat(moved.op()).isEqualTo(Ops.KEYS_IN_MEMORY);
        assertThat(moved.getList("keys")).containsExactly("s");
        assertThat(io.dask4j.runtime.protocol.ColumnBatch.decoded(moved, "workers", moved.getList("workers"), 0))
                .as("the client is pointed at the copy that still counts").isEqualTo(reporter.id);

        finish(holder, "u2", 8);
        assertThat(freed(holder == a ? toA : toB)).as("dropped once its own task is done with it").contains("s");
        assertThat(freed(reporter == a ? toA : toB)).doesNotContain("s");
    }

    @Test
    void aTaskWhoseInputsKeepGoingMissingErrsInsteadOfLoopingForever() {
        TaskState z = zOverXOnAAndYOnB();
        for (int round = 1; round <= SchedulerState.MAX_MISSING_DATA_ROUNDS + 1; round++) {
            for (String dep : List.of("x", "y")) {
                if (status(dep) == TaskStatus.PROCESSING) {
                    finish(state.tx.tasks.get(dep).processingOn, dep, 8);   // recomputed where the scheduler put it
                }
            }
            assertThat(status("z")).as("round " + round).isEqualTo(TaskStatus.PROCESSING);
            WorkerState runner = z.processingOn;
            // The runner cannot fetch an input from a holder it cannot reach (as with a listen address its peers
            // cannot connect to): from the other worker if it holds one, else from an address nobody answers.
            String dep = state.tx.tasks.get("x").holders.contains(runner) ? "y" : "x";
            WorkerState holder = state.tx.tasks.get(dep).holders.getFirst();
            String from = holder == runner ? "tcp://192.0.2.1:1" : holder.id;
            state.onWorkerMessage(runner, Message.of(Ops.MISSING_DATA, Map.of("key", "z", "run", z.runId, "dep", dep,
                    "from", from)), 0);
            state.assign();
        }
        assertThat(status("z")).isEqualTo(TaskStatus.ERRED);
        assertThat(z.error.message()).contains("could not fetch input").contains("went missing " + (SchedulerState.MAX_MISSING_DATA_ROUNDS + 1) + " times");
    }

    @Test
    void workersThatMissTheirHeartbeatsAreReported() {
        state.onWorkerMessage(a, Message.of(Ops.HEARTBEAT), 5_000_000_000L);
        assertThat(state.silentWorkers(6_000_000_000L, 2_000_000_000L)).containsExactly(b);
    }

    @Test
    void theSnapshotCountsTasksPerState() {
        submit(List.of(List.of("x"), List.of("y", "x")), List.of("y"));
        SchedulerSnapshot s = state.snapshot(0, 0);
        assertThat(s.count(TaskStatus.PROCESSING)).isEqualTo(1);
        assertThat(s.count(TaskStatus.WAITING)).isEqualTo(1);
        assertThat(s.workers()).hasSize(2);
        assertThat(s.clients()).isEqualTo(1);
    }
}
