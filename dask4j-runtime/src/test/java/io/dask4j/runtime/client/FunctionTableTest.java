package io.dask4j.runtime.client;

import io.dask4j.comm.Message;
import io.dask4j.runtime.protocol.Ops;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The client's side of the function lifecycle: when bytes travel, and what a forget request waits for. */
@Timeout(30)
class FunctionTableTest {
    private final GraphEncoder.FunctionTable table = new GraphEncoder.FunctionTable();
    private final SerializableFunction<Integer, Integer> fn = x -> x + 1;
    private final Adapters.OfFunction<Integer, Integer> task = new Adapters.OfFunction<>(fn);
    private final List<Message> wire = new CopyOnWriteArrayList<>();
    /** Threads of their own: the common pool may have a single one on a 2-core machine. */
    private final java.util.concurrent.Executor threads = Thread.ofVirtual()::start;

    private Message submit(String key) {
        return table.whileSending(() -> {
            GraphEncoder enc = new GraphEncoder(table, Set.of(key), false);
            enc.add(key, fn, task, new Object[]{1});
            enc.sendAll(wire::add);
            return wire.getLast();
        });
    }

    private static boolean carriesBytes(Message m) {
        return m.has("functions") && !m.getMap("functions").isEmpty();
    }

    @Test
    void bytesTravelOnceThenAgainAfterTheSchedulerAskedToForgetThem() {
        assertThat(carriesBytes(submit("a"))).isTrue();
        assertThat(carriesBytes(submit("b"))).isFalse();
        String id = (String) submit("c").getList("fns_dict").getFirst();
        table.forget(List.of(id), ids -> wire.add(Message.of(Ops.FUNCTIONS_FORGOTTEN, Map.of("ids", ids))));
        assertThat(table.sentCount()).isZero();
        assertThat(carriesBytes(submit("d"))).isTrue();
        assertThat(carriesBytes(submit("e"))).isFalse();
    }

    @Test
    void aForgottenFunctionIsSerializedAfreshUnderTheIdOfItsNewBytes() {
        int[] captured = {1};
        SerializableFunction<Integer, Integer> addsCaptured = x -> x + captured[0];
        Adapters.OfFunction<Integer, Integer> adding = new Adapters.OfFunction<>(addsCaptured);
        GraphEncoder enc = new GraphEncoder(table, Set.of("a"), false);
        table.whileSending(() -> {
            enc.add("a", addsCaptured, adding, new Object[]{1});
            enc.sendAll(wire::add);
            return null;
        });
        String before = (String) wire.getLast().getList("fns_dict").getFirst();
        captured[0] = 2;
        table.forget(List.of(before), ids -> { });
        GraphEncoder again = new GraphEncoder(table, Set.of("b"), false);
        table.whileSending(() -> {
            again.add("b", addsCaptured, adding, new Object[]{1});
            again.sendAll(wire::add);
            return null;
        });
        Message m = wire.getLast();
        String after = (String) m.getList("fns_dict").getFirst();
        assertThat(after).as("the id names the bytes that travel, not those of the first submission").isNotEqualTo(before);
        assertThat(m.getMap("functions")).containsOnlyKeys(after);
    }

    @Test
    void theAnswerToAForgetFollowsEverySubmissionThatNamedTheFunctionWithoutItsBytes() throws Exception {
        String id = (String) submit("a").getList("fns_dict").getFirst();
        CountDownLatch encoded = new CountDownLatch(1);
        CountDownLatch mayProceed = new CountDownLatch(1);
        CompletableFuture<Void> slowSubmitter = CompletableFuture.runAsync(() -> table.whileSending(() -> {
            GraphEncoder enc = new GraphEncoder(table, Set.of("b"), false);
            enc.add("b", fn, task, new Object[]{2});   // names the function without its bytes: the scheduler has them
            encoded.countDown();
            try {
                mayProceed.await();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            enc.sendAll(wire::add);
            return null;
        }), threads);
        assertThat(encoded.await(10, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Void> answer = new CompletableFuture<>();
        Thread answering = Thread.ofVirtual().start(() -> {
            table.forget(List.of(id), ids -> wire.add(Message.of(Ops.FUNCTIONS_FORGOTTEN, Map.of("ids", ids))));
            answer.complete(null);
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!answer.isDone() && answering.getState() != Thread.State.WAITING) {
            assertThat(System.nanoTime() - deadline).as("the answer blocked or finished within 10 s").isNegative();
            Thread.onSpinWait();
        }
        assertThat(answer).as("the answer waits for the submission in flight").isNotDone();
        mayProceed.countDown();
        slowSubmitter.get(10, TimeUnit.SECONDS);
        answer.get(10, TimeUnit.SECONDS);
        assertThat(wire.stream().map(Message::op).toList())
                .containsExactly(Ops.UPDATE_GRAPH, Ops.UPDATE_GRAPH, Ops.FUNCTIONS_FORGOTTEN);
        assertThat(carriesBytes(wire.get(1))).isFalse();
    }

    @Test
    void aSubmissionRacingTheFirstOneShipsTheBytesToo() throws Exception {
        // Two encoders meet the function before either has sent: both carry its bytes, so that whichever
        // message arrives first the scheduler can read it.
        GraphEncoder first = new GraphEncoder(table, Set.of("a"), false);
        GraphEncoder second = new GraphEncoder(table, Set.of("b"), false);
        first.add("a", fn, task, new Object[]{1});
        second.add("b", fn, task, new Object[]{2});
        second.sendAll(wire::add);
        first.sendAll(wire::add);
        assertThat(carriesBytes(wire.get(0))).isTrue();
        assertThat(carriesBytes(wire.get(1))).isTrue();
    }
}
