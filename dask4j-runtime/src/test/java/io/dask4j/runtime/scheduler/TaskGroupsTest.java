package io.dask4j.runtime.scheduler;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class TaskGroupsTest {

    private static String group(String key) {
        return key.substring(0, TaskGroups.prefixEnd(key));
    }

    @Test
    void keysAreGroupedByTheirPrefixAsDaskSplitsThem() {
        assertThat(group("map-1a2b3c4d-17")).isEqualTo("map");
        assertThat(group("map-deadbeef-3")).isEqualTo("map");
        assertThat(group("tree1-sum-5")).isEqualTo("tree1-sum");
        assertThat(group("random-3-2,4")).isEqualTo("random");
        assertThat(group("x")).isEqualTo("x");
        assertThat(group("load-data-part-7")).isEqualTo("load-data-part");
        assertThat(group("-odd")).isEqualTo("-odd");
        assertThat(group("trailing-")).isEqualTo("trailing");
    }

    @Test
    void tasksOfOneLayerShareAGroupAndNewPrefixesMakeNewGroups() {
        TaskGroups groups = new TaskGroups();
        TaskGroup a = groups.of("inc-00000001-1");
        assertThat(groups.of("inc-00000001-2")).isSameAs(a);
        TaskGroup b = groups.of("sum-1");
        assertThat(b).isNotSameAs(a);
        assertThat(groups.of("inc-00000001-3")).isSameAs(a);
        assertThat(groups.views()).extracting(TaskGroupView::name).containsExactly("inc", "sum");
    }

    @Test
    void groupsAreBoundedAndIdleOnesMakeRoom() {
        TaskGroups groups = new TaskGroups();
        for (int i = 0; i < TaskGroups.MAX_GROUPS; i++) {
            groups.of("g" + i + "-1").counts[TaskStatus.MEMORY.ordinal()]++;
        }
        assertThat(groups.of("overflow-1").name).isEqualTo(TaskGroups.OTHER);
        groups.of("g0-1").counts[TaskStatus.MEMORY.ordinal()]--;
        assertThat(groups.of("fresh-1").name).isEqualTo("fresh");
        assertThat(groups.views().size()).isLessThanOrEqualTo(TaskGroups.MAX_GROUPS + 1);
    }

    @Test
    void theStreamRingSamplesEvenlyAndNeverReturnsMoreThanAsked() {
        TaskStreamRing ring = new TaskStreamRing();
        TaskGroup g = new TaskGroup("g");
        for (int i = 0; i < 100_000; i++) {
            ring.record("w", g, "k" + (i % 10), i, i + 1);
        }
        List<TaskStreamEvent> sample = ring.since(0, 400);
        assertThat(sample).hasSizeLessThanOrEqualTo(400).hasSizeGreaterThan(300);
        assertThat(sample.getLast().seq()).isEqualTo(99_999);
        assertThat(sample.getFirst().seq()).isGreaterThanOrEqualTo(100_000 - TaskStreamRing.CAPACITY);
        assertThat(ring.since(99_990, 400)).extracting(TaskStreamEvent::seq).containsExactly(
                99_990L, 99_991L, 99_992L, 99_993L, 99_994L, 99_995L, 99_996L, 99_997L, 99_998L, 99_999L);
        assertThat(ring.since(100_000, 400)).isEmpty();
    }

    @Test
    void theWindowAnswersOnlyEventsAfterTheGivenSequenceNumber() {
        TaskStreamWindow w = new TaskStreamWindow();
        for (int i = 0; i < TaskStreamWindow.CAPACITY + 100; i++) {
            w.append(List.of(new TaskStreamEvent(i, "w", "g", "k", 1, 2)));
        }
        assertThat(w.after(-1, 10_000)).hasSize(TaskStreamWindow.CAPACITY);
        assertThat(w.after(TaskStreamWindow.CAPACITY + 97, 10)).extracting(TaskStreamEvent::seq)
                .containsExactly((long) TaskStreamWindow.CAPACITY + 98, (long) TaskStreamWindow.CAPACITY + 99);
        assertThat(w.after(0, 5)).hasSize(5).last().extracting(TaskStreamEvent::seq).isEqualTo((long) TaskStreamWindow.CAPACITY + 99);
    }
}
