package io.dask4j.runtime.worker;

import io.dask4j.runtime.client.Client;
import io.dask4j.runtime.client.DaskFuture;
import io.dask4j.runtime.cluster.RunningCluster;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * dask4j's JFR events, recorded in-process with the {@link Recording} API and read back with {@link RecordingFile}:
 * task runs, data transfers between workers and large comm messages appear when enabled, and not otherwise.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(60)
class FlightRecorderEventsTest {
    /** One cluster for the class (one instance per class), closed after its tests. */
    @AutoClose
    private final RunningCluster running = RunningCluster.inproc(2, 1);
    private final Client client = running.client();

    @TempDir
    Path dir;

    /** Two results, one per worker, summed by a task that must fetch one of them from the other worker. */
    private long runTasksThatMoveData() {
        List<DaskFuture<byte[]>> parts = client.map((Integer i) -> new byte[200_000], List.of(1, 2, 3, 4));
        DaskFuture<Long> total = client.submit((List<byte[]> xs) -> xs.stream().mapToLong(x -> x.length).sum(), parts);
        return total.result();
    }

    private List<RecordedEvent> record(Map<String, String> settings) throws Exception {
        Path file = dir.resolve("run-" + System.nanoTime() + ".jfr");
        try (Recording r = new Recording(Configuration.getConfiguration("default"))) {
            r.setSettings(withDefaults(r.getSettings(), settings));
            r.start();
            assertThat(runTasksThatMoveData()).isEqualTo(800_000);
            r.stop();
            r.dump(file);
        }
        return RecordingFile.readAllEvents(file).stream().filter(e -> e.getEventType().getName().startsWith("io.dask4j.")).toList();
    }

    private static Map<String, String> withDefaults(Map<String, String> defaults, Map<String, String> ours) {
        Map<String, String> all = new java.util.HashMap<>(defaults);
        all.putAll(ours);
        return all;
    }

    @Test
    void enabledEventsRecordTaskRunsTransfersAndLargeMessages() throws Exception {
        List<RecordedEvent> events = record(Map.of(
                "io.dask4j.TaskRun#enabled", "true",
                "io.dask4j.DataTransfer#enabled", "true",
                "io.dask4j.CommMessage#enabled", "true",
                "io.dask4j.CommMessage#minSize", "100 kB"));

        List<RecordedEvent> runs = named(events, "io.dask4j.TaskRun");
        assertThat(runs).hasSizeGreaterThanOrEqualTo(5);
        assertThat(runs).extracting(e -> e.getString("group")).contains("map", "function");
        assertThat(runs).allSatisfy(e -> {
            assertThat(e.getString("key")).startsWith(e.getString("group"));
            assertThat(e.getString("worker")).startsWith("inproc://");
            assertThat(e.getDuration().isNegative()).isFalse();
        });

        List<RecordedEvent> transfers = named(events, "io.dask4j.DataTransfer").stream()
                .filter(e -> e.getString("kind").equals("fetch")).toList();
        assertThat(transfers).isNotEmpty().allSatisfy(e -> {
            assertThat(e.getString("transport")).isEqualTo("inproc");
            assertThat(e.getString("peer")).startsWith("inproc://");
            assertThat(e.getLong("bytes")).isGreaterThanOrEqualTo(200_000);
            assertThat(e.getInt("keys")).isPositive();
        });

        List<RecordedEvent> messages = named(events, "io.dask4j.CommMessage");
        assertThat(messages).isNotEmpty().allSatisfy(e -> assertThat(e.getLong("bytes")).isGreaterThanOrEqualTo(100 * 1024));
        assertThat(messages).extracting(e -> e.getString("op")).contains("data");
        assertThat(messages).extracting(e -> e.getString("direction")).contains("in", "out");
    }

    @Test
    void theClientsScatterAndGatherAreDataTransfersToo() throws Exception {
        Path file = dir.resolve("client.jfr");
        try (Recording r = new Recording(Configuration.getConfiguration("default"))) {
            r.setSettings(withDefaults(r.getSettings(), Map.of("io.dask4j.DataTransfer#enabled", "true")));
            r.start();
            List<DaskFuture<byte[]>> held = client.scatter(List.of(new byte[300_000], new byte[300_000]));
            DaskFuture<byte[]> doubled = client.submit((byte[] x) -> new byte[2 * x.length], held.getFirst());
            assertThat(client.gather(List.of(doubled)).getFirst()).hasSize(600_000);
            r.stop();
            r.dump(file);
        }
        List<RecordedEvent> transfers = named(RecordingFile.readAllEvents(file), "io.dask4j.DataTransfer");

        List<RecordedEvent> scatters = transfers.stream().filter(e -> e.getString("kind").equals("scatter")).toList();
        // Round-robin over the two workers: one put each, with one value of 300,000 bytes and some framing.
        assertThat(scatters).hasSize(2).allSatisfy(e -> {
            assertThat(e.getInt("keys")).isEqualTo(1);
            assertThat(e.getLong("bytes")).isGreaterThanOrEqualTo(300_000);
            assertThat(e.getString("peer")).startsWith("inproc://");
            assertThat(e.getString("transport")).isEqualTo("inproc");
        });
        assertThat(scatters).extracting(e -> e.getString("peer")).doesNotHaveDuplicates();
        List<RecordedEvent> gathers = transfers.stream().filter(e -> e.getString("kind").equals("gather")).toList();
        assertThat(gathers).singleElement().satisfies(e -> {
            assertThat(e.getInt("keys")).isEqualTo(1);
            assertThat(e.getLong("bytes")).isGreaterThanOrEqualTo(600_000);
            assertThat(e.getString("peer")).startsWith("inproc://");
        });
    }

    @Test
    void aRecordingThatDoesNotEnableThemHasNoDask4jEvents() throws Exception {
        assertThat(record(Map.of())).isEmpty();
    }

    @Test
    void messagesBelowTheSizeThresholdAreNotRecorded() throws Exception {
        List<RecordedEvent> events = record(Map.of("io.dask4j.CommMessage#enabled", "true", "io.dask4j.CommMessage#minSize", "1 GB"));
        assertThat(named(events, "io.dask4j.CommMessage")).isEmpty();
    }

    private static List<RecordedEvent> named(List<RecordedEvent> events, String name) {
        return events.stream().filter(e -> e.getEventType().getName().equals(name)).toList();
    }
}
