package io.dask4j.runtime.scheduler;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ProcessingTasksTest {

    @Test
    void removingFromTheMiddleKeepsTheOthersFindable() {
        ProcessingTasks processing = new ProcessingTasks();
        TaskState a = new TaskState("a");
        TaskState b = new TaskState("b");
        TaskState c = new TaskState("c");
        processing.add(a);
        processing.add(b);
        processing.add(c);

        assertThat(processing.remove(a)).isTrue();
        assertThat(processing.size()).isEqualTo(2);
        assertThat(processing.remove(a)).as("already removed").isFalse();
        assertThat(processing.remove(c)).as("moved into a's slot, still found").isTrue();
        assertThat(processing.remove(b)).isTrue();
        assertThat(processing.size()).isZero();
    }

    @Test
    void aTaskOfAnotherWorkerIsNotRemovedHere() {
        ProcessingTasks here = new ProcessingTasks();
        ProcessingTasks there = new ProcessingTasks();
        TaskState mine = new TaskState("mine");
        TaskState theirs = new TaskState("theirs");
        here.add(mine);
        there.add(theirs);

        assertThat(here.remove(theirs)).isFalse();
        assertThat(here.size()).isEqualTo(1);
        assertThat(there.remove(theirs)).isTrue();
    }

    @Test
    void drainEmptiesAndForgetsEverySlot() {
        ProcessingTasks processing = new ProcessingTasks();
        TaskState a = new TaskState("a");
        TaskState b = new TaskState("b");
        processing.add(a);
        processing.add(b);

        assertThat(processing.drain()).containsExactlyInAnyOrder(a, b);
        assertThat(processing.size()).isZero();
        assertThat(a.processingSlot).isEqualTo(-1);
        assertThat(processing.remove(b)).isFalse();
    }
}
