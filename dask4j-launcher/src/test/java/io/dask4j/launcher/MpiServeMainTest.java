package io.dask4j.launcher;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MpiServeMainTest {

    @Test
    void theCommandLineBecomesOptionsWithoutAClientRank() {
        MpiClusterOptions o = MpiServeMain.parse(List.of("--scheduler-file", "s.json", "--protocol", "tcp", "--nthreads", "4",
                "--memory-limit", "2GiB", "--local-directory", "/tmp/spill", "--name", "node", "--scheduler-port", "8786"));

        assertThat(o.schedulerFile()).isEqualTo(Path.of("s.json"));
        assertThat(o.protocol()).isEqualTo(MpiProtocol.TCP);
        assertThat(o.threads()).isEqualTo(4);
        assertThat(o.memoryLimit()).isEqualTo(2L << 30);
        assertThat(o.localDirectory()).isEqualTo(Path.of("/tmp/spill"));
        assertThat(o.workerNamePrefix()).isEqualTo("node");
        assertThat(o.schedulerPort()).isEqualTo(8786);
        assertThat(o.clientRank()).isEqualTo(RankLayout.NONE);
        assertThat(o.layout(3).workerRanks()).containsExactly(1, 2);
    }

    @Test
    void noSchedulerMakesEveryRankAWorkerAndNeedsTheSchedulerFile() {
        MpiClusterOptions o = MpiServeMain.parse(List.of("--no-scheduler", "--scheduler-file", "s.json"));

        assertThat(o.layout(2).workerRanks()).containsExactly(0, 1);
        assertThatThrownBy(() -> MpiServeMain.parse(List.of("--no-scheduler"))).hasMessageContaining("--scheduler-file");
    }

    @Test
    void badArgumentsAreNamed() {
        assertThatThrownBy(() -> MpiServeMain.parse(List.of("--protocol", "udp"))).hasMessageContaining("unknown protocol 'udp'");
        assertThatThrownBy(() -> MpiServeMain.parse(List.of("--nthreads", "many"))).hasMessageContaining("--nthreads needs a number");
        assertThatThrownBy(() -> MpiServeMain.parse(List.of("--bogus"))).hasMessageContaining("unexpected argument '--bogus'");
        assertThatThrownBy(() -> MpiServeMain.parse(List.of("--name"))).hasMessageContaining("--name needs a value");
    }
}
