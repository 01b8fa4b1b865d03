package io.dask4j.runtime.client;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TaskGraphTest {
    @Test
    void tasksComeDepthFirstFromTheOutputsEachAfterItsInputs() {
        TaskGraph g = new TaskGraph()
                .add("a", () -> 1).add("b", () -> 2).add("c", () -> 3).add("d", () -> 4)
                .add("ab", (Integer x, Integer y) -> x + y, TaskGraph.ref("a"), TaskGraph.ref("b"))
                .add("cd", (Integer x, Integer y) -> x + y, TaskGraph.ref("c"), TaskGraph.ref("d"))
                .add("all", (Integer x, Integer y) -> x + y, TaskGraph.ref("ab"), TaskGraph.ref("cd"))
                .add("unused", () -> 0);
        assertThat(g.inPriorityOrder(List.of("all"))).extracting(TaskGraph.Node::key)
                .containsExactly("a", "b", "ab", "c", "d", "cd", "all");
        assertThat(g.sizeFor(List.of("all"))).isEqualTo(7);
        assertThat(g.sizeFor(List.of("ab", "c"))).isEqualTo(4);
        assertThat(g.sizeFor(List.of("held-elsewhere", "cd"))).isEqualTo(3);   // outputs outside the graph run nothing
    }

    @Test
    void aCycleIsRejectedBeforeSubmitting() {
        TaskGraph g = new TaskGraph()
                .add("x", (Integer v) -> v, TaskGraph.ref("y"))
                .add("y", (Integer v) -> v, TaskGraph.ref("x"));
        assertThatThrownBy(() -> g.inPriorityOrder(List.of("x"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cycle");
    }

    @Test
    void aKeyCannotBeAddedTwice() {
        TaskGraph g = new TaskGraph().add("x", () -> 1);
        assertThatThrownBy(() -> g.add("x", () -> 2)).isInstanceOf(IllegalArgumentException.class);
    }
}
