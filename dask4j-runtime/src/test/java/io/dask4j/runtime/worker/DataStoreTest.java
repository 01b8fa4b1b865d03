package io.dask4j.runtime.worker;

import io.dask4j.comm.serialize.ClassAllowList;
import io.dask4j.comm.serialize.Deserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

class DataStoreTest {

    private static final Deserializer DECODER = new Deserializer(ClassAllowList.builtInOnly());
    @TempDir
    Path dir;

    private static double[] doubles(int n, double seed) {
        double[] a = new double[n];
        for (int i = 0; i < n; i++) {
            a[i] = seed + i * 0.5;
        }
        return a;
    }

    @Test
    void valuesThatCannotBeSpilledStayInMemoryAndPutsGoOn() throws Exception {
        Path notADirectory = Files.writeString(dir.resolve("a-file"), "spill directories cannot go here");
        DataStore s = new DataStore(10_000, 0.5, notADirectory.resolve("spill"), DECODER);
        for (int i = 0; i < 5; i++) {
            s.put("v" + i, doubles(500, i), 4000);   // each put past the limit tries to spill, and cannot
        }
        assertThat(s.spillCount()).isZero();
        assertThat(s.memoryBytes()).isEqualTo(20_000);
        for (int i = 0; i < 5; i++) {
            assertThat((double[]) s.get("v" + i)).isEqualTo(doubles(500, i));
        }
    }

    @Test
    void bytesAreAccountedOnPutAndRemove() {
        DataStore s = new DataStore(0, 0.7, dir, DECODER);
        s.put("a", new byte[100], 116);
        s.put("b", "text", 44);
        assertThat(s.memoryBytes()).isEqualTo(160);
        s.remove("a");
        assertThat(s.memoryBytes()).isEqualTo(44);
        assertThat(s.keys()).containsExactly("b");
    }

    @Test
    void leastRecentlyUsedValuesSpillPastTheLimitAndComeBackIdentical() throws Exception {
        DataStore s = new DataStore(10_000, 0.5, dir, DECODER);
        double[] first = doubles(500, 1);
        s.put("first", first, 4000);
        s.put("second", doubles(500, 2), 4000);
        assertThat(s.isSpilled("first")).isTrue();
        assertThat(s.isSpilled("second")).isFalse();
        assertThat(s.memoryBytes()).isEqualTo(4000);
        assertThat(s.spilledBytes()).isEqualTo(4000);
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> spilled = files.toList();
            assertThat(spilled).hasSize(1);
            assertThat(Files.size(spilled.getFirst())).as("raw doubles plus a small header").isBetween(4000L, 4100L);
        }
        assertThat((double[]) s.get("first")).containsExactly(first);
        assertThat(s.isSpilled("first")).isFalse();
        assertThat(s.isSpilled("second")).isTrue();
        assertThat(s.spillCount()).isEqualTo(2);
        assertThat(s.unspillCount()).isEqualTo(1);
    }

    @Test
    void objectsSpillThroughTheSerializerAndComeBack() {
        DataStore s = new DataStore(100, 0.5, dir, DECODER);
        s.put("m", java.util.Map.of("k", List.of(1, 2, 3)), 80);
        s.put("n", "other", 80);
        assertThat(s.isSpilled("m")).isTrue();
        assertThat(s.get("m")).isEqualTo(java.util.Map.of("k", List.of(1, 2, 3)));
    }

    @Test
    void removingASpilledValueDeletesItsFile() throws Exception {
        DataStore s = new DataStore(100, 0.5, dir, DECODER);
        s.put("a", new byte[80], 80);
        s.put("b", new byte[80], 80);
        s.remove("a");
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.count()).isZero();
        }
        assertThat(s.contains("a")).isFalse();
    }

    @Test
    void sizesAreExactForArrays() {
        assertThat(Sizes.estimate(new double[1000])).isEqualTo(8016);
        assertThat(Sizes.estimate(new byte[10])).isEqualTo(26);
        assertThat(Sizes.estimate(List.of(1, 2, 3))).isPositive();
    }
}
