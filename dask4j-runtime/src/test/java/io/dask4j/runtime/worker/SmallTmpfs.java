package io.dask4j.runtime.worker;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A tmpfs of a few pages mounted for one test, so a disk can really fill. Needs root: skipped elsewhere,
 * unless {@code DASK4J_REQUIRE_ROOT_MOUNTS=1} (CI, which runs as root), where failing to mount fails the test.
 */
final class SmallTmpfs implements AutoCloseable {

    private final Path mountPoint;

    private SmallTmpfs(Path mountPoint) {
        this.mountPoint = mountPoint;
    }

    static SmallTmpfs mount(Path mountPoint, String size) throws IOException, InterruptedException {
        Files.createDirectories(mountPoint);
        String failure = run("mount", "-t", "tmpfs", "-o", "size=" + size + ",mode=0700", "tmpfs", mountPoint.toString());
        if (failure != null) {
            if ("1".equals(System.getenv("DASK4J_REQUIRE_ROOT_MOUNTS"))) {
                throw new AssertionError("cannot mount a tmpfs and DASK4J_REQUIRE_ROOT_MOUNTS=1: " + failure);
            }
            Assumptions.abort("cannot mount a tmpfs (needs root): " + failure);
        }
        return new SmallTmpfs(mountPoint);
    }

    Path path() {
        return mountPoint;
    }

    @Override
    public void close() throws IOException, InterruptedException {
        String failure = run("umount", mountPoint.toString());
        if (failure != null) {
            throw new IOException("cannot unmount " + mountPoint + ": " + failure);
        }
    }

    /** Null when the command succeeded, else what it said. */
    private static String run(String... command) throws InterruptedException {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return String.join(" ", command) + " did not finish in 30 s";
            }
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            return p.exitValue() == 0 ? null : String.join(" ", command) + " exited " + p.exitValue() + ": " + out;
        } catch (IOException e) {
            return e.toString();
        }
    }
}
