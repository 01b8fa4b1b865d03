package io.dask4j.mpi.it;

import io.dask4j.comm.JvmFlags;
import io.dask4j.mpi.it.MpiJob.Impl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What Open MPI's real {@code mpirun} hands a java program: a script named {@code java} prints the arguments it
 * got, one per line. When the program is {@code java}, mpirun takes the first argument containing "cp" for a class
 * path flag and prepends its working directory to the argument after it; {@link JvmFlags#javaCommand} puts
 * {@code -cp} first so that only its value is touched (which the {@code --class-path} after it overrides), however
 * many "cp" the rest contains.
 */
class OpenMpiJavaCommandTest {

    private static final String MAIN = "io.dask4j.Main";

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void everythingAfterTheClassPathReachesJavaUnchanged() throws Exception {
        MpiJob.assumeInstalled(Impl.OPENMPI);
        Path java = fakeJava();
        String classPath = String.join(File.pathSeparator, "/home/cpaul/lib/app.jar", "/opt/scp/x.jar");
        List<String> jvmArgs = List.of("-Dx=/tmp/tcp", "-Dlogs=/home/cpaul/logs", JvmFlags.STACK);
        // The last argument contains "cp" too: mpirun crashes when the argument it rewrites is missing.
        List<String> args = List.of("--protocol", "tcp", "--mpi-logs", "/tmp/logs-tcp", "tcp");
        List<String> line = JvmFlags.javaCommand(java.toString(), jvmArgs, classPath, MAIN, args);

        List<String> seen = argumentsSeen(line);

        assertThat(seen).as("%s", seen).hasSize(line.size() - 1).first().isEqualTo("-cp");
        assertThat(seen.get(1)).matches(workingDirectoryBefore(classPath));
        assertThat(seen.subList(2, seen.size())).isEqualTo(line.subList(3, line.size()))
                .startsWith("--class-path", classPath);
    }

    /** The quirk itself, so that the test above cannot pass on an mpirun that rewrites nothing. */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void withTheClassPathAfterAnOptionContainingCpTheMainClassIsMangled() throws Exception {
        MpiJob.assumeInstalled(Impl.OPENMPI);
        Path java = fakeJava();
        List<String> line = List.of(java.toString(), "-Dx=/tmp/tcp", "--class-path", "/opt/app.jar", MAIN, "tcp", "x");

        List<String> seen = argumentsSeen(line);

        assertThat(seen).as("%s", seen).containsSubsequence("-Dx=/tmp/tcp", "/opt/app.jar", "tcp", "x")
                .doesNotContain("--class-path");
        assertThat(seen.get(seen.indexOf("-Dx=/tmp/tcp") + 1)).matches(workingDirectoryBefore("--class-path"));
    }

    /** A script named {@code java} (mpirun looks at the program's name) printing its arguments, one per line. */
    private Path fakeJava() throws IOException {
        Path java = dir.resolve("java");
        Files.writeString(java, "#!/bin/sh\nfor a in \"$@\"; do printf 'ARG %s\\n' \"$a\"; done\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwx------"));
        return java;
    }

    /**
     * The arguments the program got from {@code mpirun -np 1}, without the {@code -Djava.library.path} that
     * mpirun inserts first (its own library directory) when the line has none.
     */
    private static List<String> argumentsSeen(List<String> javaLine) throws IOException, InterruptedException {
        MpiJob.Result r = MpiJob.runWith(Impl.OPENMPI, 1, Map.of(), 60, javaLine);
        assertThat(r.exitCode()).as(r.output()).isZero();
        List<String> seen = new ArrayList<>(r.output().lines().filter(l -> l.startsWith("ARG "))
                .map(l -> l.substring("ARG ".length())).toList());
        if (!seen.isEmpty() && seen.getFirst().startsWith("-Djava.library.path=")) {
            seen.removeFirst();
        }
        return seen;
    }

    /** {@code value} with mpirun's working directory (and Open MPI's mpi.jar, where installed) before it. */
    private static String workingDirectoryBefore(String value) {
        return "(?:[^:]*mpi\\.jar:)?" + Pattern.quote(System.getProperty("user.dir") + File.pathSeparator + value);
    }
}
