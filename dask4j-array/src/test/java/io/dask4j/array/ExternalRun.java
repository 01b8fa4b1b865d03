package io.dask4j.array;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A program another ecosystem provides (Python, node), run to completion for the file round-trip tests, and the
 * little-endian float64 files those programs write the expected values to. Called from test threads only.
 *
 * @param exit   the program's exit status
 * @param output its standard output and error, interleaved
 */
record ExternalRun(int exit, String output) {

    /** Runs {@code command}, failing the test if it takes more than two minutes (a hung interpreter). */
    static ExternalRun of(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("timed out: " + command);
        }
        return new ExternalRun(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }

    /** Whether {@code command} runs and exits with 0 (a probe for an installed program). */
    static boolean succeeds(List<String> command) {
        try {
            return of(command).exit == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The contents of a file of little-endian float64 values. */
    static double[] doubles(Path file) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        double[] out = new double[b.remaining() / 8];
        b.asDoubleBuffer().get(out);
        return out;
    }
}
