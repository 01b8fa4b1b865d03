package io.dask4j.comm.stats;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LatencyTraceTest {

    @Test
    void keepsPointsInOrderWithTimeProcessAndThreadOnlyWhileEnabledAndUpToItsCapacity(@TempDir Path dir) throws Exception {
        LatencyTrace.mark("before");   // not enabled: dropped
        LatencyTrace.enable(3);
        LatencyTrace.mark("first");
        LatencyTrace.message("get-data", true);
        LatencyTrace.message("data", false);
        LatencyTrace.mark("beyond the capacity");
        Path file = dir.resolve("trace.txt");
        LatencyTrace.dump(file);
        LatencyTrace.mark("after");    // the dump stopped it

        List<String> lines = Files.readAllLines(file);
        assertThat(lines).hasSize(3);
        String pid = Long.toString(ProcessHandle.current().pid());
        String thread = " @" + Thread.currentThread().getName();
        assertThat(lines.get(0)).endsWith(" " + pid + " first" + thread);
        assertThat(lines.get(1)).endsWith(" " + pid + " write get-data" + thread);
        assertThat(lines.get(2)).endsWith(" " + pid + " read data" + thread);
        long t0 = Long.parseLong(lines.get(0).split(" ")[0]);
        long t2 = Long.parseLong(lines.get(2).split(" ")[0]);
        assertThat(t2).isGreaterThanOrEqualTo(t0);
        assertThat(LatencyTrace.enabled()).isFalse();

        Path none = dir.resolve("none.txt");
        LatencyTrace.dump(none);
        assertThat(none).doesNotExist();
    }
}
