package io.dask4j.runtime.worker;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class ReadyQueueTest {

    private static WorkerTask task(String key, long priority) {
        return new WorkerTask(key, 0, "fn", new byte[0], priority);
    }

    private static List<String> drain(ReadyQueue q) {
        List<String> keys = new ArrayList<>();
        for (WorkerTask t; (t = q.poll()) != null; ) {
            keys.add(t.key);
        }
        return keys;
    }

    @Test
    void tasksLeaveLowestPriorityFirstWhateverOrderTheyCameIn() {
        Random random = new Random(29);
        for (int round = 0; round < 200; round++) {
            ReadyQueue q = new ReadyQueue();
            List<WorkerTask> added = new ArrayList<>();
            long p = 0;
            for (int i = 0; i < 50; i++) {
                // mostly ascending runs, as the scheduler sends them, with jumps back and repeats
                p = random.nextInt(4) == 0 ? random.nextInt(100) : p + random.nextInt(3);
                WorkerTask t = task("k" + i, p);
                added.add(t);
                q.add(t);
            }
            assertThat(q.isEmpty()).isFalse();
            List<WorkerTask> out = new ArrayList<>();
            for (WorkerTask t; (t = q.poll()) != null; ) {
                out.add(t);
            }
            assertThat(out).extracting(t -> t.priority)
                    .isEqualTo(added.stream().map(t -> t.priority).sorted().toList());
            assertThat(out).containsExactlyInAnyOrderElementsOf(added);
            assertThat(q.isEmpty()).isTrue();
        }
    }

    @Test
    void pollsInterleavedWithAddsStillTakeTheLeastReady() {
        ReadyQueue q = new ReadyQueue();
        q.add(task("a", 5));
        q.add(task("b", 7));
        assertThat(q.poll().key).isEqualTo("a");
        q.add(task("c", 1));     // below the deque's tail: goes to the heap
        q.add(task("d", 9));
        assertThat(q.poll().key).isEqualTo("c");
        q.add(task("e", 6));
        assertThat(drain(q)).containsExactly("e", "b", "d");
        assertThat(q.poll()).isNull();
    }

    @Test
    void takeWaitsForTheNextTask() throws Exception {
        ReadyQueue q = new ReadyQueue();
        CompletableFuture<String> taken = new CompletableFuture<>();
        Thread taker = Thread.ofPlatform().start(() -> {
            try {
                taken.complete(q.take().key);
            } catch (InterruptedException e) {
                taken.completeExceptionally(e);
            }
        });
        while (taker.getState() != Thread.State.WAITING) {   // parked in take(), the queue being empty
            Thread.onSpinWait();
        }
        assertThat(taken).isNotDone();
        q.add(task("x", 3));
        assertThat(taken.get(30, TimeUnit.SECONDS)).isEqualTo("x");
        assertThat(q.isEmpty()).isTrue();
    }

    @Test
    void takeEndsWhenItsThreadIsInterrupted() throws Exception {
        ReadyQueue q = new ReadyQueue();
        CompletableFuture<Throwable> ended = new CompletableFuture<>();
        Thread taker = Thread.ofPlatform().start(() -> {
            try {
                q.take();
                ended.complete(null);
            } catch (InterruptedException e) {
                ended.complete(e);
            }
        });
        while (taker.getState() != Thread.State.WAITING) {
            Thread.onSpinWait();
        }
        taker.interrupt();
        assertThat(ended.get(30, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
    }
}
