package io.dask4j.launcher;

import io.dask4j.comm.Address;
import io.dask4j.runtime.protocol.SchedulerFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class SchedulerFilesTest {

    @TempDir
    Path dir;

    @Test
    void aWrittenFileReplacesAStaleOneAndTheRuntimeReadsItsTcpAddressFirst() throws Exception {
        Path file = dir.resolve("scheduler.json");
        Files.writeString(file, "{\"address\": \"tcp://127.0.0.1:1\", \"run_id\": \"old\"}");

        SchedulerFiles.write(file, List.of(Address.parse("tcp://127.0.0.1:8786"), Address.mpi(0)), "run-2", 5,
                "the-jobs-secret-of-128-bits");

        SchedulerFiles.Content content = SchedulerFiles.read(file, Duration.ofSeconds(1));
        assertThat(content.runId()).isEqualTo("run-2");
        assertThat(content.socketAddress()).isEqualTo(Address.parse("tcp://127.0.0.1:8786"));
        assertThat(content.pid()).isEqualTo(ProcessHandle.current().pid());
        assertThat(content.secret()).isEqualTo("the-jobs-secret-of-128-bits");
        assertThat(SchedulerFile.read(file, Duration.ofSeconds(1))).isEqualTo(Address.parse("tcp://127.0.0.1:8786"));
        assertThat(SchedulerFile.readContents(file, Duration.ofSeconds(1), line -> { }).secret())
                .as("the runtime reads the launcher's secret too").isEqualTo("the-jobs-secret-of-128-bits");
        assertThat(Files.getPosixFilePermissions(file)).containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ,
                PosixFilePermission.OWNER_WRITE);
        try (var files = Files.list(dir)) {
            assertThat(files.toList()).containsExactly(file);
        }
    }

    @Test
    void aStaleFileIsDeletedAtStart() throws Exception {
        Path file = dir.resolve("scheduler.json");
        Files.writeString(file, "{}");

        assertThat(SchedulerFiles.deleteStale(file)).isTrue();
        assertThat(file).doesNotExist();
        assertThat(SchedulerFiles.deleteStale(file)).isFalse();
    }
}
