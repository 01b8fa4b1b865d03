package io.dask4j.runtime.worker;

import io.dask4j.runtime.protocol.KeyGroups;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * A JFR event per task a worker runs: its key, group, worker, and duration (unpacking the arguments and running
 * the function). Disabled unless a recording enables {@code io.dask4j.TaskRun} (docs/observability.md); when
 * disabled, {@link #begin()} costs a check and nothing is built. One task thread per event.
 */
@Name("io.dask4j.TaskRun")
@Label("Task Run")
@Category({"dask4j", "Tasks"})
@Description("A task run on a worker")
@Enabled(false)
@StackTrace(false)
final class TaskRunEvent extends Event {
    @Label("Key")
    String key;
    @Label("Group")
    String group;
    @Label("Worker")
    String worker;

    /** An event begun now if recordings want task runs, else null. */
    static TaskRunEvent start() {
        TaskRunEvent e = new TaskRunEvent();
        if (!e.isEnabled()) {
            return null;
        }
        e.begin();
        return e;
    }

    /** Ends {@code e} (null: not recording) and commits it if the recording keeps it. */
    static void finish(TaskRunEvent e, String key, String worker) {
        if (e == null) {
            return;
        }
        e.end();
        if (e.shouldCommit()) {
            e.key = key;
            e.group = KeyGroups.groupOf(key);
            e.worker = worker;
            e.commit();
        }
    }
}
