package io.dask4j.launcher;

import io.dask4j.comm.SelfSignedTls;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
    void tlsFlagsGiveTheJobTlsOptionsAndItsSocketListenersTls(@TempDir Path dir) {
        SelfSignedTls certificate = SelfSignedTls.create(dir);
        MpiClusterOptions o = MpiServeMain.parse(List.of("--tls-cert", certificate.certificate().toString(), "--tls-key",
                certificate.privateKey().toString(), "--tls-ca-file", certificate.certificate().toString(), "--tls-mutual",
                "--tls-no-hostname-check", "--scheduler-port", "0"));

        assertThat(o.comm().tls().material()).isEqualTo(certificate.pemFiles());
        assertThat(o.comm().tls().mutualAuth()).isTrue();
        assertThat(o.comm().tls().verifyHostname()).isFalse();
        assertThat(RankListeners.of(o, List.of("n1", "n2")).scheduler(0, "10.0.0.11", 8786))
                .extracting(a -> a.scheme()).containsExactly("mpi", "tls");
        assertThat(MpiServeMain.parse(List.of()).comm().tls()).as("no TLS without key material").isNull();
        assertThatThrownBy(() -> MpiServeMain.parse(List.of("--tls-mutual"))).hasMessageContaining("need key material");
    }

    @Test
    void badArgumentsAreNamed() {
        assertThatThrownBy(() -> MpiServeMain.parse(List.of("--protocol", "udp"))).hasMessageContaining("unknown protocol 'udp'");
        assertThatThrownBy(() -> MpiServeMain.parse(List.of("--nthreads", "many"))).hasMessageContaining("--nthreads needs a number");
        assertThatThrownBy(() -> MpiServeMain.parse(List.of("--bogus"))).hasMessageContaining("unexpected argument '--bogus'");
        assertThatThrownBy(() -> MpiServeMain.parse(List.of("--name"))).hasMessageContaining("--name needs a value");
    }
}
