package io.dask4j.array.io;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Damaged HDF5 files read through jhdf: every truncation of small files h5py wrote (a 20 x 30 float64 dataset
 * {@code /x}, chunked 8 x 8 with shuffle and gzip, chunked unfiltered, and contiguous), and seeded random byte
 * changes in their metadata and anywhere. Opening and reading each must either succeed (a changed data byte is
 * undetectable without a checksum) or fail with an {@link ArrayFileException} naming the file: never another
 * exception, which a worker would report without the file's name, nor an error that is not an exception.
 *
 * <p>The fixtures were written by {@code h5py.File(name, 'w', libver='earliest').create_dataset('x', data=a,
 * chunks=(8, 8), compression='gzip', shuffle=True)} (and without compression, and without chunks), with {@code a =
 * np.arange(600.0).reshape(20, 30) + 0.5}.
 */
class HostileHdf5Test {

    private static byte[] fixture(String name) throws IOException {
        try (InputStream in = HostileHdf5Test.class.getResourceAsStream("/hdf5/" + name)) {
            return in.readAllBytes();
        }
    }

    /** The damaged copies of {@code file}: its truncations, then seeded byte changes. */
    private static List<byte[]> damaged(byte[] file, long seed) {
        List<byte[]> out = new ArrayList<>();
        for (int n = 0; n < file.length; n += 23) {
            out.add(java.util.Arrays.copyOf(file, n));
        }
        Random rnd = new Random(seed);
        for (int k = 0; k < 1000; k++) {
            byte[] v = file.clone();
            // Mostly in the first 2 KiB, where h5py puts the superblock, object headers and chunk index.
            int at = k % 3 == 0 ? rnd.nextInt(file.length) : rnd.nextInt(Math.min(file.length, 2048));
            v[at] = (byte) rnd.nextInt(256);
            out.add(v);
        }
        return out;
    }

    @Test
    void aGzipChunkThatInflatesFarPastItsShapeFailsWithoutAllocatingItAll(@TempDir Path dir) throws IOException {
        // Written by h5py: /x as chunked-gzip.h5's (no shuffle), then chunk (0, 0) replaced through
        // d.id.write_direct_chunk((0, 0), zlib.compress(b'\0' * (4 << 20), 9), 0): 4 KiB that inflate to 4 MiB,
        // for a chunk of 8 x 8 float64, 512 bytes. /s is the same data with shuffle and gzip, intact.
        Path file = Files.write(dir.resolve("bomb.h5"), fixture("gzip-bomb.h5"));
        Hdf5Array bomb = Hdf5Array.open(file, "/x");
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long before = mx.getCurrentThreadAllocatedBytes();
        assertThatThrownBy(() -> bomb.read(0, 0, 8, 8)).isInstanceOf(ArrayFileException.class)
                .hasMessageStartingWith(file + ": dataset '/x': chunk at [0, 0]")
                .hasMessageContaining("decompresses to more than the 512 bytes of its shape");
        assertThat(mx.getCurrentThreadAllocatedBytes() - before).as("bytes allocated by the refused read").isLessThan(2L << 20);
        // The other chunks, and the shuffled dataset, read as h5py wrote them.
        assertThat(bomb.read(8, 8, 1, 2)).containsExactly(8 * 30 + 8.5, 8 * 30 + 9.5);
        Hdf5Array shuffled = Hdf5Array.open(file, "/s");
        double[] all = shuffled.read(0, 0, 20, 30);
        for (int i = 0; i < all.length; i++) {
            assertThat(all[i]).isEqualTo(i + 0.5);
        }
    }

    @Test
    void aTruncatedFileNeverReadsAsOtherValues(@TempDir Path dir) throws IOException {
        // Cutting into the last chunks of a file leaves their index pointing past its end; a read-only mapping there
        // read zeros, so a truncation of up to a few KiB (less than the file's metadata, so the chunk index's sizes
        // still fit the file) read the lost values as 0.
        List<String> wrong = new ArrayList<>();
        for (String name : List.of("chunked.h5", "chunked-gzip.h5", "contiguous.h5")) {
            byte[] whole = fixture(name);
            for (int n = whole.length - 1; n > whole.length - 4096 && n > 0; n -= 5) {
                Path file = Files.write(dir.resolve(n + "-" + name), java.util.Arrays.copyOf(whole, n));
                try {
                    Hdf5Array a = Hdf5Array.open(file, "/x");
                    double[] v = a.read(0, 0, 20, 30);
                    for (int i = 0; i < v.length; i++) {
                        if (v[i] != i + 0.5) {
                            wrong.add(file.getFileName() + ": element " + i + " reads " + v[i]);
                            break;
                        }
                    }
                } catch (ArrayFileException e) {
                    assertThat(e.file()).isEqualTo(file.toString());
                }
            }
        }
        assertThat(wrong).as("truncated files read as other values than they held").isEmpty();
    }

    @Test
    void everyDamagedCopyReadsOrFailsNamingTheFile(@TempDir Path dir) throws IOException {
        List<String> wrong = new ArrayList<>();
        int failed = 0;
        int read = 0;
        for (String name : List.of("chunked-gzip.h5", "chunked.h5", "contiguous.h5")) {
            List<byte[]> copies = damaged(fixture(name), name.hashCode());
            for (int k = 0; k < copies.size(); k++) {
                Path file = dir.resolve(k + "-" + name);
                Files.write(file, copies.get(k));
                try {
                    Hdf5Array a = Hdf5Array.open(file, "/x");
                    // At most the fixture's 20 x 30: a damaged shape may be huge, and a sparse one reads as fill values.
                    int rows = Math.min(a.shape().rows(), 20);
                    int cols = Math.min(a.shape().cols(), 30);
                    assertThat(a.read(0, 0, rows, cols)).hasSize(rows * cols);
                    read++;
                } catch (ArrayFileException e) {
                    if (!e.file().equals(file.toString())) {
                        wrong.add(file.getFileName() + ": names " + e.file());
                    }
                    failed++;
                } catch (Throwable e) {
                    wrong.add(file.getFileName() + ": " + e);
                }
                Files.delete(file);
            }
        }
        assertThat(wrong).as("damaged copies that failed with something else than an ArrayFileException naming them").isEmpty();
        assertThat(failed).as("copies refused").isPositive();
        assertThat(read).as("copies read (changed data bytes)").isPositive();
    }
}
