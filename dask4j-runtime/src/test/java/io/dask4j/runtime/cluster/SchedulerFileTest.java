package io.dask4j.runtime.cluster;

import io.dask4j.comm.Address;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SchedulerFileTest {
    @TempDir
    Path dir;

    @Test
    void aWrittenFileIsJsonThatReadsBackTheAddresses() throws Exception {
        Path file = dir.resolve("scheduler.json");
        List<Address> addresses = List.of(Address.parse("tcp://127.0.0.1:8786"), Address.parse("inproc://s"));
        SchedulerFile.write(file, addresses);
        assertThat(Files.readString(file)).contains("\"address\" : \"tcp://127.0.0.1:8786\"").contains("\"pid\"");
        assertThat(SchedulerFile.readAll(file, Duration.ofSeconds(1))).isEqualTo(addresses);
        assertThat(SchedulerFile.read(file, Duration.ofSeconds(1))).isEqualTo(addresses.getFirst());
        try (var files = Files.list(dir)) {
            assertThat(files.toList()).as("no temporary file left behind").containsExactly(file);
        }
    }

    @Test
    @Timeout(10)
    void readingWaitsForTheFileThenGivesUpWithAClearError() {
        assertThatThrownBy(() -> SchedulerFile.read(dir.resolve("absent.json"), Duration.ofMillis(200)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("did not appear");
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

    @Test
    void memorySizesParseAsPeopleWriteThem() {
        assertThat(MemorySize.parse("4GiB")).isEqualTo(4L << 30);
        assertThat(MemorySize.parse("500MB")).isEqualTo(500_000_000L);
        assertThat(MemorySize.parse("2g")).isEqualTo(2L << 30);
        assertThat(MemorySize.parse("1e9")).isEqualTo(1_000_000_000L);
        assertThat(MemorySize.parse("0")).isZero();
        assertThatThrownBy(() -> MemorySize.parse("lots")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MemorySize.parse("5 parsecs")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void workerMainArgumentsBecomeAConfig() {
        var config = WorkerMain.parse(new String[]{"tcp://127.0.0.1:9999", "--nthreads", "3", "--memory-limit", "1GiB",
                "--name", "w"});
        assertThat(config.scheduler()).isEqualTo(Address.parse("tcp://127.0.0.1:9999"));
        assertThat(config.nthreads()).isEqualTo(3);
        assertThat(config.memoryLimit()).isEqualTo(1L << 30);
        assertThatThrownBy(() -> WorkerMain.parse(new String[]{"--nthreads", "2"})).isInstanceOf(IllegalArgumentException.class);
    }
}
