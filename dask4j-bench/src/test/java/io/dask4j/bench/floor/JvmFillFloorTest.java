package io.dask4j.bench.floor;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The JVM fill floor reads the chunks it is given, byte for byte, and its readers answer every read. */
class JvmFillFloorTest {

    @Test
    void aChunkReadsAsTheLittleEndianDoublesAtItsOffset(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("f.bin");
        ByteBuffer b = ByteBuffer.allocate(16 + 5 * 8).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(-1).putLong(-1);
        for (int i = 0; i < 5; i++) {
            b.putDouble(i * 1.5 - 2);
        }
        Files.write(file, b.array());
        Files.writeString(dir.resolve("list"), file + " 16 40\n\n" + file + " 24 8\n");
        List<JvmFillFloor.Chunk> chunks = JvmFillFloor.chunks(dir.resolve("list"));
        assertThat(chunks).hasSize(2);
        assertThat(JvmFillFloor.read(chunks.get(0))).containsExactly(-2, -0.5, 1, 2.5, 4);
        assertThat(JvmFillFloor.read(chunks.get(1))).containsExactly(-0.5);
        // Twice a reader's share, as bench seed gives its workers: 3 chunks of 128 MiB over 3 readers.
        JvmFillFloor.Chunk big = new JvmFillFloor.Chunk(file, 0, 128L << 20);
        assertThat(JvmFillFloor.defaultHeap(List.of(big, big, big), 3)).isEqualTo("768m");
    }

    @Test
    void aListLineThatIsNotWholeDoublesIsRefusedByName(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("list"), "/x 0 12\n");
        assertThatThrownBy(() -> JvmFillFloor.chunks(dir.resolve("list")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'/x 0 12'");
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void everyReaderAnswersEveryReadWithItsTime(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("f.bin");
        Files.write(file, new byte[3 * 4096]);
        Files.writeString(dir.resolve("list"), file + " 0 4096\n" + file + " 4096 4096\n" + file + " 8192 4096\n");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        JvmFillFloor.run(dir.resolve("list"), 2, 3, "64m", new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String[] times = bytes.toString(StandardCharsets.UTF_8).trim().split(" ");
        assertThat(times).hasSize(3).allSatisfy(t -> assertThat(Double.parseDouble(t)).isGreaterThanOrEqualTo(0));
    }
}
