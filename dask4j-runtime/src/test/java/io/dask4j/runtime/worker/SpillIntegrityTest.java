package io.dask4j.runtime.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dask4j.comm.serialize.ClassAllowList;
import io.dask4j.comm.serialize.Deserializer;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A spill file that reads back altered, truncated or not at all loses its key with a typed error, the counters
 * stay right and the loss is reported; it is never read back as a wrong value.
 */
class SpillIntegrityTest {

    private static final Deserializer DECODER = new Deserializer(ClassAllowList.builtInOnly());

    @TempDir
    Path dir;

    private final List<String> lost = new ArrayList<>();

    /** A store with "a" (4,000 bytes of ones) spilled and "b" in memory. */
    private DataStore storeWithOneSpilled() {
        DataStore s = new DataStore(10_000, 0.5, dir, DECODER);
        s.onLost(lost::add);
        double[] ones = new double[500];
        java.util.Arrays.fill(ones, 1.0);
        s.put("a", ones, 4000);
        s.put("b", new double[500], 4000);
        assertThat(s.isSpilled("a")).isTrue();
        assertThat(s.spilledBytes()).isEqualTo(4000);
        return s;
    }

    private Path onlySpillFile() throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> all = files.toList();
            assertThat(all).hasSize(1);
            return all.getFirst();
        }
    }

    private void assertLost(DataStore s, String reason) throws Exception {
        assertThatThrownBy(() -> s.get("a"))
                .isInstanceOf(SpilledValueLostException.class)
                .hasMessageContaining(reason)
                .satisfies(e -> assertThat(((SpilledValueLostException) e).key()).isEqualTo("a"))
                .hasCauseInstanceOf(SpillFileCorruptException.class);
        assertThat(s.contains("a")).isFalse();
        assertThat(s.get("a")).as("gone after the failed read, not read again").isNull();
        assertThat(s.spilledBytes()).isZero();
        assertThat(s.memoryBytes()).isEqualTo(4000);
        assertThat(s.spillReadFailures()).isEqualTo(1);
        assertThat(lost).containsExactly("a");
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.count()).as("the corrupt file is deleted").isZero();
        }
        assertThat((double[]) s.get("b")).as("other keys are untouched").hasSize(500);
    }

    @Test
    void aValueReadsBackIntactWhenItsFileIsUntouched() {
        DataStore s = storeWithOneSpilled();
        double[] back = (double[]) s.get("a");
        assertThat(back).hasSize(500).containsOnly(1.0);
        assertThat(lost).isEmpty();
    }

    @Test
    void oneFlippedBitInTheDataLosesTheKeyInsteadOfReadingAWrongValue() throws Exception {
        DataStore s = storeWithOneSpilled();
        Path file = onlySpillFile();
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            long at = raf.length() - 4 - 8 * 250 + 6;   // a byte inside one of the doubles
            raf.seek(at);
            int b = raf.read();
            raf.seek(at);
            raf.write(b ^ 0x01);
        }
        assertLost(s, "checksum mismatch");
    }

    @Test
    void aTruncatedFileLosesTheKeyAndKeepsTheCountersRight() throws Exception {
        DataStore s = storeWithOneSpilled();
        Path file = onlySpillFile();
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(raf.length() / 2);
        }
        assertLost(s, "truncated");
    }

    @Test
    void aHeaderClaimingAHugeFrameIsRefusedBeforeAnythingIsAllocated() throws Exception {
        DataStore s = storeWithOneSpilled();
        Path file = onlySpillFile();
        // magic (4), version (1), codec length (2), codec, frame count (4), then the first frame's size.
        byte[] bytes = Files.readAllBytes(file);
        int codecLength = ByteBuffer.wrap(bytes, 5, 2).order(ByteOrder.LITTLE_ENDIAN).getShort();
        ByteBuffer.wrap(bytes, 7 + codecLength + 4, 8).order(ByteOrder.LITTLE_ENDIAN).putLong(1L << 40);
        Files.write(file, bytes);
        assertLost(s, "claims");
    }

    @Test
    void aMissingFileLosesTheKeyToo() throws Exception {
        DataStore s = storeWithOneSpilled();
        Files.delete(onlySpillFile());
        assertThatThrownBy(() -> s.get("a")).isInstanceOf(SpilledValueLostException.class);
        assertThat(s.contains("a")).isFalse();
        assertThat(s.spilledBytes()).isZero();
        assertThat(lost).containsExactly("a");
    }

    @Test
    void aDiskThatFillsMidSpillKeepsTheValuesInMemoryWithTheCountersRight() throws Exception {
        try (SmallTmpfs disk = SmallTmpfs.mount(dir.resolve("small-disk"), "64k")) {
            DataStore s = new DataStore(100_000, 0.1, disk.path(), DECODER);
            s.onLost(lost::add);
            // 40,000-byte values: the first spill fits in 64 KiB, the next fills the disk part-way through.
            for (int i = 0; i < 5; i++) {
                double[] v = new double[5000];
                java.util.Arrays.fill(v, i);
                s.put("v" + i, v, 40_000);
            }
            assertThat(s.spillWriteFailures()).as("spills that hit the full disk").isPositive();
            long spilledKeys = 0;
            for (int i = 0; i < 5; i++) {
                spilledKeys += s.isSpilled("v" + i) ? 1 : 0;
            }
            assertThat(spilledKeys).isEqualTo(1);
            assertThat(s.spilledBytes()).isEqualTo(40_000);
            assertThat(s.memoryBytes()).isEqualTo(4 * 40_000);
            try (Stream<Path> files = Files.list(disk.path())) {
                assertThat(files.count()).as("no partial file is left behind").isEqualTo(spilledKeys);
            }
            for (int i = 0; i < 5; i++) {
                assertThat((double[]) s.get("v" + i)).as("v" + i).hasSize(5000).containsOnly((double) i);
            }
            assertThat(lost).isEmpty();
            s.clear();
        }
    }
}
