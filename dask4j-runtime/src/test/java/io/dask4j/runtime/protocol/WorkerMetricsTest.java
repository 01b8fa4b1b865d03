package io.dask4j.runtime.protocol;

import io.dask4j.comm.Message;
import io.dask4j.comm.wire.WireCodec;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class WorkerMetricsTest {

    @Test
    void heartbeatFieldsAreHeaderSafeAndReadBackTheSame() {
        WorkerMetrics m = WorkerMetrics.collect(1234, 56);
        Message hb = Message.of(Ops.HEARTBEAT, m.toFields());
        WireCodec.checkEncodable(hb);
        WorkerMetrics back = WorkerMetrics.from(hb);
        assertThat(back.memoryBytes()).isEqualTo(1234);
        assertThat(back.spilledBytes()).isEqualTo(56);
        assertThat(back.heapMaxBytes()).isPositive();
        assertThat(back.traffic()).isEqualTo(m.traffic());
        assertThat(back.peers()).isEqualTo(m.peers());
        assertThat(back.gauges()).isEqualTo(m.gauges());
    }

    @Test
    void anOldOrMalformedHeartbeatReadsAsZerosInsteadOfFailing() {
        WorkerMetrics old = WorkerMetrics.from(Message.of(Ops.HEARTBEAT, Map.of("memory", 10L, "spilled", 2L)));
        assertThat(old.memoryBytes()).isEqualTo(10);
        assertThat(old.traffic()).isEmpty();
        WorkerMetrics odd = WorkerMetrics.from(Message.of(Ops.HEARTBEAT, Map.of("memory", "lots", "traffic", List.of(1L),
                "peers", List.of(List.of("x")), "gauges", Map.of("mpi_engine", "fast"))));
        assertThat(odd).isEqualTo(new WorkerMetrics(0, 0, 0, 0, 0, Map.of(), List.of(), Map.of()));
    }
}
