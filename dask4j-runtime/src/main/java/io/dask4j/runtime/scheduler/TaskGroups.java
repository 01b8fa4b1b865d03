package io.dask4j.runtime.scheduler;

import io.dask4j.runtime.protocol.KeyGroups;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The scheduler's {@link TaskGroup}s by key prefix, at most {@link #MAX_GROUPS}: when full, a group
 * without live tasks is dropped to make room, else the task goes to the {@link #OTHER} group.
 * Event-loop thread only. Finding a task's group avoids allocating when the prefix repeats the
 * previous task's (the common case: a map or a graph layer creates its tasks in a row).
 */
final class TaskGroups {
    static final int MAX_GROUPS = 500;
    static final String OTHER = "(other)";

    private final Map<String, TaskGroup> byName = new LinkedHashMap<>();
    private TaskGroup last;

    TaskGroup of(String key) {
        int end = prefixEnd(key);
        TaskGroup l = last;
        if (l != null && l.name.length() == end && key.startsWith(l.name)) {
            return l;
        }
        String name = key.substring(0, end);
        TaskGroup g = byName.get(name);
        if (g == null) {
            if (byName.size() >= MAX_GROUPS && !dropIdle()) {
                g = byName.computeIfAbsent(OTHER, TaskGroup::new);
                return g;
            }
            g = new TaskGroup(name);
            byName.put(name, g);
        }
        last = g;
        return g;
    }

    List<TaskGroupView> views() {
        List<TaskGroupView> out = new ArrayList<>(byName.size());
        for (TaskGroup g : byName.values()) {
            out.add(g.view());
        }
        return out;
    }

    private boolean dropIdle() {
        for (var it = byName.values().iterator(); it.hasNext(); ) {
            TaskGroup g = it.next();
            if (!g.name.equals(OTHER) && live(g) == 0) {
                it.remove();
                if (last == g) {
                    last = null;
                }
                return true;
            }
        }
        return false;
    }

    private static int live(TaskGroup g) {
        int n = 0;
        for (TaskStatus s : TaskStatus.values()) {
            if (s != TaskStatus.FORGOTTEN) {
                n += g.counts[s.ordinal()];
            }
        }
        return n;
    }

    /** Where the group name ends in {@code key}: see {@link KeyGroups#prefixEnd}. */
    static int prefixEnd(String key) {
        return KeyGroups.prefixEnd(key);
    }
}
