package io.dask4j.jobs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** Where a job's AOT caches live, which JVM options each role gets, and how training files become caches. */
class AotCachesTest {
    private static final String CLASS_PATH = System.getProperty("java.class.path");

    @Test
    void aRebuiltJarNamesANewDirectory(@TempDir Path dir) throws IOException {
        Path jar = dir.resolve("app.jar");
        Files.writeString(jar, "version 1");
        Path before = AotCaches.forJob(dir.resolve("aot"), jar.toString(), List.of("job")).directory();
        Files.writeString(jar, "version 2, longer");
        assertThat(AotCaches.forJob(dir.resolve("aot"), jar.toString(), List.of("job")).directory()).isNotEqualTo(before);
    }

    @Test
    void aClassPathWithANonEmptyDirectoryCannotHaveCaches(@TempDir Path dir) throws IOException {
        Path jar = dir.resolve("a.jar");
        Files.writeString(jar, "jar");
        Path empty = Files.createDirectory(dir.resolve("empty"));
        assertThat(AotCaches.unsupportedReason(jar + File.pathSeparator + empty)).isNull();
        Path classes = Files.createDirectory(dir.resolve("classes"));
        Files.writeString(classes.resolve("A.class"), "class");
        assertThat(AotCaches.unsupportedReason(jar + File.pathSeparator + classes)).contains(classes.toString()).contains("jars only");
    }

    @Test
    void offGivesNoOptionsAndKeepsNothing() throws IOException {
        assertThat(AotCaches.OFF.enabled()).isFalse();
        assertThat(AotCaches.OFF.jvmArgs("worker", true)).isEmpty();
        assertThat(AotCaches.OFF.has("worker")).isFalse();
        assertThat(AotCaches.OFF.commit()).isEmpty();
    }

    @Test
    void aJobsDirectoryIsNamedByWhatTheCachesDependOn(@TempDir Path root) throws IOException {
        Path a = AotCaches.forJob(root, CLASS_PATH, List.of("seed", "mpi", "20000")).directory();
        assertThat(AotCaches.forJob(root, CLASS_PATH, List.of("seed", "mpi", "20000")).directory()).isEqualTo(a);
        assertThat(AotCaches.forJob(root, CLASS_PATH, List.of("seed", "tcp", "20000")).directory()).isNotEqualTo(a);
        assertThat(AotCaches.forJob(root, CLASS_PATH, List.of("seed", "mpi", "2000", "0")).directory()).isNotEqualTo(a);
        assertThat(a.getParent()).isEqualTo(root);
    }

    @Test
    void aRoleWithoutACacheTrainsIntoAStagingFileAndOneWithACacheUsesIt(@TempDir Path root) throws IOException {
        AotCaches caches = AotCaches.forJob(root, CLASS_PATH, List.of("job"));
        List<String> training = caches.jvmArgs("client", true);
        assertThat(training.getFirst()).startsWith("-XX:AOTCacheOutput=" + caches.directory().resolve("client.staging-"))
                .endsWith("%p.aot");
        assertThat(caches.jvmArgs("client", false)).isEmpty();

        Files.writeString(caches.directory().resolve("client.aot"), "cache");
        assertThat(caches.has("client")).isTrue();
        assertThat(caches.jvmArgs("client", true)).containsExactly("-XX:AOTCache=" + caches.directory().resolve("client.aot"));
        assertThat(caches.jvmArgs("client", false)).isEqualTo(caches.jvmArgs("client", true));
    }

    @Test
    void commitKeepsOneStagingFilePerRoleAndDeletesTheRest(@TempDir Path root) throws IOException {
        AotCaches caches = AotCaches.forJob(root, CLASS_PATH, List.of("job"));
        Path dir = caches.directory();
        Files.writeString(dir.resolve("worker.staging-pid10.aot"), "one");
        Files.writeString(dir.resolve("worker.staging-pid11.aot"), "two");
        Files.writeString(dir.resolve("driver.staging-pid12.aot"), "");   // cut short: no cache
        Files.writeString(dir.resolve("scheduler.aot"), "old");
        Files.writeString(dir.resolve("scheduler.staging-pid13.aot"), "new");

        assertThat(caches.commit()).containsExactly("worker");
        assertThat(names(dir)).containsExactlyInAnyOrder("worker.aot", "scheduler.aot");
        assertThat(Files.readString(dir.resolve("worker.aot"))).isIn("one", "two");
        assertThat(Files.readString(dir.resolve("scheduler.aot"))).isEqualTo("old");
    }

    @Test
    void discardDeletesTheStagingFilesOfAFailedJob(@TempDir Path root) throws IOException {
        AotCaches caches = AotCaches.forJob(root, CLASS_PATH, List.of("job"));
        Files.writeString(caches.directory().resolve("client.staging-pid7.aot"), "half");
        Files.writeString(caches.directory().resolve("worker.aot"), "kept");
        caches.discard();
        assertThat(names(caches.directory())).containsExactly("worker.aot");
    }

    @Test
    void onlyTheMostRecentlyUsedJobDirectoriesAreKept(@TempDir Path root) throws IOException {
        for (int i = 0; i < AotCaches.KEPT_JOBS + 3; i++) {
            Path dir = AotCaches.forJob(root, CLASS_PATH, List.of("job", Integer.toString(i))).directory();
            Files.setLastModifiedTime(dir, FileTime.fromMillis(1_000_000L * (i + 1)));
        }
        Path newest = AotCaches.forJob(root, CLASS_PATH, List.of("job", "new")).directory();
        assertThat(names(root)).hasSize(AotCaches.KEPT_JOBS).contains(newest.getFileName().toString());
        // The oldest went first: the directory of job 0 (least recently used) is gone, that of the last kept.
        Path jobZero = AotCaches.forJob(root.resolve("probe"), CLASS_PATH, List.of("job", "0")).directory();
        assertThat(names(root)).doesNotContain(jobZero.getFileName().toString());
    }

    @Test
    void aUsersDirectoryGivenAsTheRootLosesNothingButOurOwnJobDirectories(@TempDir Path root) throws IOException {
        List<Path> theirs = new java.util.ArrayList<>();
        for (int i = 0; i < AotCaches.KEPT_JOBS + 3; i++) {
            Path dir = Files.createDirectories(root.resolve("d" + i));
            Files.writeString(dir.resolve("file.txt"), "the user's");
            Files.setLastModifiedTime(dir, FileTime.fromMillis(1_000L * (i + 1)));
            theirs.add(dir);
        }
        Path lookalike = Files.createDirectories(root.resolve("0123456789abcdef"));   // named like a job, not one
        Files.writeString(lookalike.resolve("notes.txt"), "the user's");
        Files.writeString(lookalike.resolve("x.aot"), "the user's");
        Files.setLastModifiedTime(lookalike, FileTime.fromMillis(1_000L));
        for (int i = 0; i < AotCaches.KEPT_JOBS + 3; i++) {
            Path dir = AotCaches.forJob(root, CLASS_PATH, List.of("job", Integer.toString(i))).directory();
            Files.writeString(dir.resolve("worker.aot"), "cache");
            Files.setLastModifiedTime(dir, FileTime.fromMillis(1_000_000L * (i + 1)));
        }
        for (Path dir : theirs) {
            assertThat(dir.resolve("file.txt")).hasContent("the user's");
        }
        assertThat(lookalike.resolve("notes.txt")).exists();
        assertThat(lookalike.resolve("x.aot")).exists();
        long jobs = names(root).stream().filter(n -> n.matches("[0-9a-f]{16}") && !n.equals("0123456789abcdef")).count();
        assertThat(jobs).isEqualTo(AotCaches.KEPT_JOBS);
    }

    private static List<String> names(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).toList();
        }
    }
}
