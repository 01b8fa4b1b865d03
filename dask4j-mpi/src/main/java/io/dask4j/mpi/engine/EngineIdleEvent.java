package io.dask4j.mpi.engine;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * A JFR event per sleep of an idle MPI progress engine (a park or a doorbell wait, after spinning and yielding found
 * no work): how long it meant to sleep, how long it slept, and whether it was woken early. Disabled unless a
 * recording enables {@code io.dask4j.MpiEngineIdle}; when disabled a sleep costs one check. Engine thread only.
 */
@Name("io.dask4j.MpiEngineIdle")
@Label("MPI Engine Idle Sleep")
@Category({"dask4j", "MPI"})
@Description("An idle MPI progress engine sleeping")
@Enabled(false)
@StackTrace(false)
final class EngineIdleEvent extends Event {
    @Label("Requested")
    @Timespan
    long requestedNanos;
    @Label("Found Work")
    @Description("Work came before it slept (or a doorbell woke it)")
    boolean foundWork;

    /** How the engine thread sleeps: returns true if it found work (or was rung) instead. */
    interface Sleeper {
        boolean sleep(Object blocker, long nanos);
    }

    /** {@code sleeper.sleep(blocker, nanos)}, recorded as an event if a recording wants idle sleeps. */
    static boolean sleep(Sleeper sleeper, Object blocker, long nanos) {
        EngineIdleEvent e = new EngineIdleEvent();
        if (!e.isEnabled()) {
            return sleeper.sleep(blocker, nanos);
        }
        e.begin();
        boolean found = sleeper.sleep(blocker, nanos);
        e.end();
        if (e.shouldCommit()) {
            e.requestedNanos = nanos;
            e.foundWork = found;
            e.commit();
        }
        return found;
    }
}
