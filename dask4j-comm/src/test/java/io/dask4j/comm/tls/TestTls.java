package io.dask4j.comm.tls;

import io.dask4j.comm.SelfSignedTls;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Self-signed certificates for tests, made once per test JVM with keytool ({@link SelfSignedTls}): {@link #cluster()}
 * for the usual endpoints, {@link #stranger()} for a second, unrelated one that {@link #cluster()} does not trust.
 */
public final class TestTls {

    private TestTls() {
    }

    public static SelfSignedTls cluster() {
        return Holder.CLUSTER;
    }

    public static SelfSignedTls stranger() {
        return Holder.STRANGER;
    }

    private static final class Holder {
        static final SelfSignedTls CLUSTER = SelfSignedTls.create(tempDirectory().resolve("cluster"));
        static final SelfSignedTls STRANGER = SelfSignedTls.create(tempDirectory().resolve("stranger"));

        private static Path tempDirectory() {
            try {
                Path dir = Files.createTempDirectory("dask4j-test-tls-");
                dir.toFile().deleteOnExit();
                return dir;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
