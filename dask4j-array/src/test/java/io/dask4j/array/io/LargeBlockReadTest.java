package io.dask4j.array.io;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Blocks large enough to be read through a mapping of the file ({@link ByteRuns#MAP_AT_LEAST_BYTES}), which the
 * small files of the round-trip tests never reach: a block narrower than the array (rows copied one by one out
 * of the mapped span) and a block of whole rows, each compared element by element with what was written, and
 * a file too short for the span refused as truncated instead of faulting.
 */
class LargeBlockReadTest {
    private static final int ROWS = 1200;
    private static final int COLS = 1100;
    private static final int HEADER = 24;

    /** Element (r, c) of the test array: distinct everywhere, so a misplaced run cannot go unnoticed. */
    private static double value(long r, long c) {
        return r * 10_000.0 + c + 0.25;
    }

    private static Path write(Path file, int rows) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            ByteBuffer row = ByteBuffer.allocate(COLS * Double.BYTES).order(ByteOrder.LITTLE_ENDIAN);
            ch.write(ByteBuffer.allocate(HEADER), 0);
            for (int r = 0; r < rows; r++) {
                row.clear();
                for (int c = 0; c < COLS; c++) {
                    row.putDouble(value(r, c));
                }
                row.flip();
                ch.write(row, HEADER + (long) r * COLS * Double.BYTES);
            }
        }
        return file;
    }

    private static void assertBlock(double[] block, long r0, long c0, int rows, int cols) {
        assertThat(block).hasSize(rows * cols);
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                if (block[r * cols + c] != value(r0 + r, c0 + c)) {
                    throw new AssertionError("element (" + r + ", " + c + ") of the block is " + block[r * cols + c]
                            + ", expected " + value(r0 + r, c0 + c));
                }
            }
        }
    }

    @Test
    void aNarrowBlockIsReadRowByRowOutOfOneMapping(@TempDir Path dir) throws IOException {
        RawArray a = new RawArray(write(dir.resolve("a.raw"), ROWS).toString(), HEADER, new ArrayShape(2, ROWS, COLS),
                ElementType.FLOAT64_LE, false).checked();
        int rows = 1000;
        int cols = 700;
        assertThat((long) rows * cols * Double.BYTES).isGreaterThanOrEqualTo(ByteRuns.MAP_AT_LEAST_BYTES);
        assertBlock(a.read(150, 333, rows, cols), 150, 333, rows, cols);
    }

    @Test
    void aBlockOfWholeRowsIsOneMappedRun(@TempDir Path dir) throws IOException {
        RawArray a = new RawArray(write(dir.resolve("a.raw"), ROWS).toString(), HEADER, new ArrayShape(2, ROWS, COLS),
                ElementType.FLOAT64_LE, false).checked();
        assertBlock(a.read(100, 0, 1000, COLS), 100, 0, 1000, COLS);
    }

    @Test
    void aFileShorterThanTheMappedSpanIsRefusedAsTruncated(@TempDir Path dir) throws IOException {
        Path file = write(dir.resolve("short.raw"), ROWS - 300);
        // Not checked() on purpose: the file shrank after the metadata was read, as on a shared file system.
        RawArray a = new RawArray(file.toString(), HEADER, new ArrayShape(2, ROWS, COLS), ElementType.FLOAT64_LE, false);
        assertThatThrownBy(() -> a.read(150, 333, 1000, 700))
                .isInstanceOf(ArrayFileException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("truncated");
    }
}
