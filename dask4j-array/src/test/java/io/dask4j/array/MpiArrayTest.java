package io.dask4j.array;

import io.dask4j.mpi.launch.MpiCommandLine.SingleCopy;
import io.dask4j.mpi.launch.MpiCommandLine;
import io.dask4j.comm.JvmFlags;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The array contract over the mpi transport: one real {@code mpirun -np 4} job (scheduler, client, 2
 * workers) under Open MPI runs every test body of {@link ArrayContract} ({@link MpiArrayJob}). Skipped
 * when Open MPI's mpirun is not installed.
 */
class MpiArrayTest {
    private static final String LAUNCHER = "mpirun.openmpi";

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void theArrayContractHoldsOverMpi(@TempDir Path dir) throws Exception {
        boolean present = false;
        for (String d : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
            present |= Files.isExecutable(Path.of(d, LAUNCHER));
        }
        Assumptions.assumeTrue(present, LAUNCHER + " not installed");
        // Open MPI's defaults otherwise (single-copy CMA included), as a user's own mpirun has them.
        List<String> line = new MpiCommandLine("openmpi", LAUNCHER, SingleCopy.MPI_DEFAULT, true,
                Runtime.getRuntime().availableProcessors()).ranks(4);
        List<String> jvmArgs = new ArrayList<>(JvmFlags.QUICK_START);
        jvmArgs.addAll(List.of(JvmFlags.STACK, "-Xmx512m"));
        line.addAll(JvmFlags.javaCommand(Path.of(System.getProperty("java.home"), "bin", "java").toString(), jvmArgs,
                System.getProperty("java.class.path"), MpiArrayJob.class.getName(), List.of(dir.resolve("logs").toString())));
        Path out = dir.resolve("job-output.txt");
        Process job = new ProcessBuilder(line).directory(dir.toFile()).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        boolean ended = job.waitFor(240, TimeUnit.SECONDS);
        if (!ended) {
            job.descendants().forEach(ProcessHandle::destroyForcibly);
            job.destroyForcibly();
            job.waitFor(10, TimeUnit.SECONDS);
        }
        String output = Files.readString(out, StandardCharsets.UTF_8);
        assertThat(ended).as("job ended in time; output:%n%s", output).isTrue();
        long tests = java.util.Arrays.stream(ArrayContract.class.getDeclaredMethods())
                .filter(m -> m.isAnnotationPresent(Test.class)).count();
        assertThat(output).as(output).contains("CONTRACT DONE failures=0").doesNotContain("FAIL ");
        assertThat(output.lines().filter(l -> l.startsWith("PASS ")).count()).as(output).isEqualTo(tests);
        assertThat(job.exitValue()).as(output).isZero();
    }
}
