package io.dask4j.runtime.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dask4j.comm.Address;
import org.junit.jupiter.api.Test;

/** Parsing of the worker's command line and of its memory sizes. */
class WorkerArgumentsTest {

    @Test
    void memorySizesParseAsPeopleWriteThem() {
        assertThat(MemorySize.parse("4GiB")).isEqualTo(4L << 30);
        assertThat(MemorySize.parse("500MB")).isEqualTo(500_000_000L);
        assertThat(MemorySize.parse("2g")).isEqualTo(2L << 30);
        assertThat(MemorySize.parse("1e9")).isEqualTo(1_000_000_000L);
        assertThat(MemorySize.parse("0")).isZero();
        assertThatThrownBy(() -> MemorySize.parse("lots")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MemorySize.parse("5 parsecs")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void workerMainArgumentsBecomeAConfig() {
        var config = WorkerMain.parse(new String[]{"tcp://127.0.0.1:9999", "--nthreads", "3", "--memory-limit", "1GiB",
                "--name", "w"});
        assertThat(config.scheduler()).isEqualTo(Address.parse("tcp://127.0.0.1:9999"));
        assertThat(config.nthreads()).isEqualTo(3);
        assertThat(config.memoryLimit()).isEqualTo(1L << 30);
        assertThatThrownBy(() -> WorkerMain.parse(new String[]{"--nthreads", "2"})).isInstanceOf(IllegalArgumentException.class);
    }
}
