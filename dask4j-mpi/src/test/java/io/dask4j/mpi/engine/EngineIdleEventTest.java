package io.dask4j.mpi.engine;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The idle engine's sleeps as JFR events: recorded when a recording enables them, each with what it asked for. */
class EngineIdleEventTest {
    @TempDir
    Path dir;

    private final List<Long> slept = new ArrayList<>();

    /** Sleeps nothing; says it found work when asked for an odd number of nanoseconds. */
    private boolean fakeSleep(Object blocker, long nanos) {
        slept.add(nanos);
        return nanos % 2 == 1;
    }

    private List<RecordedEvent> idleEvents(boolean enabled) throws Exception {
        Path file = dir.resolve("idle-" + enabled + ".jfr");
        try (Recording r = new Recording()) {
            if (enabled) {
                r.enable("io.dask4j.MpiEngineIdle");
            }
            r.start();
            assertThat(EngineIdleEvent.sleep(this::fakeSleep, this, 2_000)).isFalse();
            assertThat(EngineIdleEvent.sleep(this::fakeSleep, this, 4_001)).isTrue();
            r.stop();
            r.dump(file);
        }
        return RecordingFile.readAllEvents(file).stream().filter(e -> e.getEventType().getName().equals("io.dask4j.MpiEngineIdle")).toList();
    }

    @Test
    void eachSleepIsAnEventWithItsRequestedTimeAndWhetherItFoundWork() throws Exception {
        List<RecordedEvent> events = idleEvents(true);
        assertThat(slept).containsExactly(2_000L, 4_001L);
        assertThat(events).extracting(e -> e.getDuration("requestedNanos").toNanos()).containsExactly(2_000L, 4_001L);
        assertThat(events).extracting(e -> e.getBoolean("foundWork")).containsExactly(false, true);
    }

    @Test
    void sleepsAreNotRecordedUnlessEnabledButStillHappen() throws Exception {
        assertThat(idleEvents(false)).isEmpty();
        assertThat(slept).containsExactly(2_000L, 4_001L);
    }
}
