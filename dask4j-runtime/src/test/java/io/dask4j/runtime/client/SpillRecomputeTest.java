package io.dask4j.runtime.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.dask4j.runtime.cluster.LocalCluster;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A key whose spill file is corrupted is recomputed from its inputs, as a key lost with a worker would be. */
@Timeout(60)
class SpillRecomputeTest {

    @TempDir
    Path dir;

    private static List<Path> spillFiles(Path root) throws Exception {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(p -> p.getFileName().toString().startsWith("spill-")).toList();
        }
    }

    private static void flipAByteIn(Path file) throws Exception {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            long at = raf.length() / 2;
            raf.seek(at);
            int b = raf.read();
            raf.seek(at);
            raf.write(b ^ 0x10);
        }
    }

    /** A task making 50,000 copies of {@code value}: 400 KB, so that two of them pass the worker's 600 KB limit. */
    private static SerializableSupplier<double[]> filled(double value) {
        return () -> {
            double[] a = new double[50_000];
            Arrays.fill(a, value);
            return a;
        };
    }

    @Test
    void aCorruptSpilledInputIsRecomputedAndItsDependentAndGatherGetTheRightValue() throws Exception {
        try (LocalCluster cluster = LocalCluster.builder().workers(1).threadsPerWorker(1).memoryLimit(600_000)
                .localDirectory(dir).start(); Client client = cluster.client()) {
            DaskFuture<double[]> ones = client.submit(filled(1.0));
            ones.result(Duration.ofSeconds(30));
            DaskFuture<double[]> twos = client.submit(filled(2.0));
            twos.result(Duration.ofSeconds(30));
            assertThat(cluster.workers().getFirst().store().isSpilled(ones.key())).isTrue();
            List<Path> files = spillFiles(dir);
            assertThat(files).hasSize(1);
            flipAByteIn(files.getFirst());

            DaskFuture<Double> sum = client.submit((double[] a) -> Arrays.stream(a).sum(), ones);
            assertThat(sum.result(Duration.ofSeconds(30))).isEqualTo(50_000.0);
            assertThat(ones.result(Duration.ofSeconds(30))).hasSize(50_000).containsOnly(1.0);
            assertThat(cluster.workers().getFirst().store().spillReadFailures()).isEqualTo(1);
        }
    }

    @Test
    void aCorruptSpilledResultGatheredDirectlyIsRecomputed() throws Exception {
        try (LocalCluster cluster = LocalCluster.builder().workers(1).threadsPerWorker(1).memoryLimit(600_000)
                .localDirectory(dir).start(); Client client = cluster.client()) {
            DaskFuture<double[]> ones = client.submit(filled(1.0));
            client.waitAll(List.of(ones), Duration.ofSeconds(30));
            DaskFuture<double[]> twos = client.submit(() -> new double[50_000]);
            client.waitAll(List.of(twos), Duration.ofSeconds(30));
            List<Path> files = spillFiles(dir);
            assertThat(files).hasSize(1);
            flipAByteIn(files.getFirst());
            assertThat(ones.result(Duration.ofSeconds(30))).hasSize(50_000).containsOnly(1.0);
        }
    }
}
