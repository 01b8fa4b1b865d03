package io.dask4j.runtime.protocol;

import io.dask4j.comm.Address;
import io.dask4j.comm.CommOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Map;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SchedulerFileTest {
    @TempDir
    Path dir;

    @Test
    void aWrittenFileIsJsonThatReadsBackTheAddresses() throws Exception {
        Path file = dir.resolve("scheduler.json");
        List<Address> addresses = List.of(Address.parse("tcp://127.0.0.1:8786"), Address.parse("inproc://s"));
        SchedulerFile.write(file, addresses, CommOptions.fromEnvironment(Map.of()).withInsecureNoAuth(true));
        assertThat(Files.readString(file)).contains("\"address\" : \"tcp://127.0.0.1:8786\"").contains("\"pid\"")
                .doesNotContain("secret");
        assertThat(SchedulerFile.readAll(file, Duration.ofSeconds(1))).isEqualTo(addresses);
        assertThat(SchedulerFile.read(file, Duration.ofSeconds(1))).isEqualTo(addresses.getFirst());
        try (var files = Files.list(dir)) {
            assertThat(files.toList()).as("no temporary file left behind").containsExactly(file);
        }
    }

    @Test
    void theClustersSecretTravelsInTheFileWhichOnlyItsOwnerCanRead() throws Exception {
        Path file = dir.resolve("scheduler.json");
        CommOptions cluster = CommOptions.fromEnvironment(Map.of()).withGeneratedSecret();
        SchedulerFile.write(file, List.of(Address.parse("tcp://127.0.0.1:8786")), cluster);
        assertThat(Files.getPosixFilePermissions(file)).containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ,
                PosixFilePermission.OWNER_WRITE);
        SchedulerFile.Contents contents = SchedulerFile.readContents(file, Duration.ofSeconds(1), line -> { });
        assertThat(contents.secret()).isEqualTo(cluster.secretText());
        CommOptions fromEnv = CommOptions.fromEnvironment(Map.of(CommOptions.SECRET_ENV, "another-secret-from-env"));
        assertThat(contents.options(fromEnv).secretText()).as("the file's secret wins").isEqualTo(cluster.secretText());
    }

    @Test
    @Timeout(10)
    void readingWaitsForTheFileThenGivesUpWithAClearError() {
        assertThatThrownBy(() -> SchedulerFile.read(dir.resolve("absent.json"), Duration.ofMillis(200)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("did not appear");
    }

    /**
     * A reader that has to wait says so at once and then at each interval: a worker given a mistyped path
     * used to wait silently (for a minute), which looked like a hang.
     */
    @Test
    @Timeout(10)
    void aReaderThatWaitsSaysSoAtOnceAndThenAtEachInterval() {
        Path file = dir.resolve("absent.json");
        List<String> said = new CopyOnWriteArrayList<>();
        assertThatThrownBy(() -> SchedulerFile.readAll(file, Duration.ofMillis(700), said::add, Duration.ofMillis(200)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("scheduler file " + file + " did not appear within 0.7 s");
        assertThat(said.getFirst()).isEqualTo("waiting up to 0.7 s for scheduler file " + file + " to appear");
        assertThat(said.subList(1, said.size())).hasSizeBetween(1, 3)
                .allMatch(line -> line.matches("still waiting for scheduler file .*absent\\.json \\(0\\.[2-9] s so far\\)"));
    }

    @Test
    @Timeout(10)
    void aReaderThatNeedNotWaitSaysNothingAndOneThatWaitsOnceSaysItOnce() throws Exception {
        Path file = dir.resolve("scheduler.json");
        List<String> said = new CopyOnWriteArrayList<>();
        Thread scheduler = Thread.ofVirtual().start(() -> {
            while (said.isEmpty()) {   // the file appears once the reader has begun to wait for it
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
            }
            SchedulerFile.write(file, List.of(Address.parse("tcp://127.0.0.1:8786")), CommOptions.fromEnvironment(Map.of()));
        });
        assertThat(SchedulerFile.read(file, Duration.ofSeconds(5), said::add)).isEqualTo(Address.parse("tcp://127.0.0.1:8786"));
        scheduler.join();
        assertThat(said).containsExactly("waiting up to 5.0 s for scheduler file " + file + " to appear");

        said.clear();
        SchedulerFile.read(file, Duration.ofSeconds(5), said::add);
        assertThat(said).isEmpty();
    }

    @Test
    @Timeout(10)
    void aFileLeftByADeadSchedulerIsRecognisedAsStale() throws Exception {
        Path file = dir.resolve("stale.json");
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        String host = java.net.InetAddress.getLocalHost().getHostName();
        Files.writeString(file, "{\"address\": \"tcp://127.0.0.1:1\", \"pid\": " + gone.pid() + ", \"host\": \"" + host + "\"}");
        assertThatThrownBy(() -> SchedulerFile.read(file, Duration.ofMillis(200)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("stale");
    }

}
