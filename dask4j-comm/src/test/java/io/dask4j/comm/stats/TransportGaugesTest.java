package io.dask4j.comm.stats;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class TransportGaugesTest {

    @Test
    void snapshotReportsRegisteredSourcesAndSkipsBrokenOnes() {
        Supplier<Map<String, Double>> good = () -> Map.of("passes_per_second", 42.0);
        Supplier<Map<String, Double>> broken = () -> {
            throw new IllegalStateException("boom");
        };
        TransportGauges.register("test_good", good);
        TransportGauges.register("test_broken", broken);
        try {
            Map<String, Map<String, Double>> snapshot = TransportGauges.snapshot();
            assertThat(snapshot).containsEntry("test_good", Map.of("passes_per_second", 42.0));
            assertThat(snapshot).doesNotContainKey("test_broken");
        } finally {
            TransportGauges.unregister("test_good", good);
            TransportGauges.unregister("test_broken", broken);
        }
        assertThat(TransportGauges.snapshot()).doesNotContainKeys("test_good", "test_broken");
    }

    @Test
    void unregisterLeavesANewerRegistrationInPlace() {
        Supplier<Map<String, Double>> first = () -> Map.of("v", 1.0);
        Supplier<Map<String, Double>> second = () -> Map.of("v", 2.0);
        TransportGauges.register("test_replaced", first);
        TransportGauges.register("test_replaced", second);
        TransportGauges.unregister("test_replaced", first);
        try {
            assertThat(TransportGauges.snapshot()).containsEntry("test_replaced", Map.of("v", 2.0));
        } finally {
            TransportGauges.unregister("test_replaced", second);
        }
    }
}
