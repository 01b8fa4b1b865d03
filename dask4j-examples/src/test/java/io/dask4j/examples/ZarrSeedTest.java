package io.dask4j.examples;

import io.dask4j.runtime.cluster.LocalCluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.dask4j.array.ChunkSpec;
import io.dask4j.array.DArrays;
import io.dask4j.runtime.client.Client;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ZarrSeedTest {

    @Test
    void theSeedExpressionOnTheWrittenZarrArrayEqualsItOnTheRandomArrayItCameFrom(@TempDir Path dir) throws Exception {
        try (Client client = LocalCluster.startClient(2, 1)) {
            ZarrSeed.Times t = ZarrSeed.run(client, dir.resolve("x.zarr"), 300);
            assertThat(dir.resolve("x.zarr/.zarray")).exists();
            double expected = DArrays.random(300, 300, ChunkSpec.of(300), 42).sum().compute(client) * 2;
            assertThat(t.fileSum()).isCloseTo(expected, org.assertj.core.api.Assertions.within(1e-6));
            // A second run reads the existing array rather than writing it again.
            long written = Files.getLastModifiedTime(dir.resolve("x.zarr/.zarray")).toMillis();
            ZarrSeed.run(client, dir.resolve("x.zarr"), 300);
            assertThat(Files.getLastModifiedTime(dir.resolve("x.zarr/.zarray")).toMillis()).isEqualTo(written);
        }
    }
}
