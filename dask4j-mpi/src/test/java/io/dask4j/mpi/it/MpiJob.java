package io.dask4j.mpi.it;

import io.dask4j.mpi.launch.MpiCommandLine.SingleCopy;
import io.dask4j.mpi.launch.MpiCommandLine;
import io.dask4j.comm.JvmFlags;
import org.junit.jupiter.api.Assumptions;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Starts a real {@code mpirun -np N java ... MainClass} job of the test class path under Open MPI or MPICH,
 * waits for it with a timeout (killing the whole job when it expires) and returns its exit code and output.
 * A launcher that is not installed skips the test, unless {@code DASK4J_REQUIRE_MPI=1} (env or system
 * property) makes it a failure.
 */
public final class MpiJob {

    /** The two MPI implementations and their launchers. */
    public enum Impl {
        OPENMPI("openmpi", "mpirun.openmpi", "libmpi.so.40"), MPICH("mpich", "mpirun.mpich", "libmpich.so.12");

        final String kind;
        final String launcher;
        final String library;

        Impl(String kind, String launcher, String library) {
            this.kind = kind;
            this.launcher = launcher;
            this.library = library;
        }
    }

    /** What a finished job printed and returned. */
    public record Result(int exitCode, String output) {
    }

    private MpiJob() {
    }

    /** Skips (or fails under DASK4J_REQUIRE_MPI=1) when {@code impl}'s launcher is missing. */
    public static void assumeInstalled(Impl impl) {
        boolean present = launcherPath(impl) != null;
        if (!present && required()) {
            throw new AssertionError(impl.launcher + " not found on PATH and DASK4J_REQUIRE_MPI=1");
        }
        Assumptions.assumeTrue(present, impl.launcher + " not installed");
    }

    static boolean required() {
        return "1".equals(System.getenv("DASK4J_REQUIRE_MPI")) || "1".equals(System.getProperty("DASK4J_REQUIRE_MPI"));
    }

    public static Result run(Impl impl, int ranks, Map<String, String> env, long timeoutSeconds, Class<?> main,
                             String... args) throws IOException, InterruptedException {
        return runWith(impl, ranks, env, timeoutSeconds, javaCommand(main, args));
    }

    /** The java command line of a rank: this JVM's java, the test class path, native access, quick start-up. */
    public static List<String> javaCommand(Class<?> main, String... args) {
        List<String> jvmArgs = new ArrayList<>(JvmFlags.QUICK_START);
        jvmArgs.add(JvmFlags.STACK);
        return JvmFlags.javaCommand(Path.of(System.getProperty("java.home"), "bin", "java").toString(), jvmArgs,
                System.getProperty("java.class.path"), main.getName(), List.of(args));
    }

    /**
     * Open MPI's single-copy mechanism between ranks of a node. Jobs run with {@code none} (copy-in/copy-out,
     * which works in any container) unless the caller's {@code env} names one.
     */
    public static final String SINGLE_COPY_VARIABLE = "OMPI_MCA_btl_vader_single_copy_mechanism";

    public static Result runWith(Impl impl, int ranks, Map<String, String> env, long timeoutSeconds, List<String> command)
            throws IOException, InterruptedException {
        List<String> line = commandLine(impl, ranks, env);
        line.addAll(command);
        return runProcess(line, env, timeoutSeconds);
    }

    /** The launcher's part of a job's command line: {@code mpirun} (or {@code mpiexec}) and its options. */
    private static List<String> commandLine(Impl impl, int ranks, Map<String, String> env) {
        // The ranks find their library by the launcher's environment, or by the caller's DASK4J_MPI_LIB.
        return new MpiCommandLine(impl.kind, impl.launcher,
                env.containsKey(SINGLE_COPY_VARIABLE) ? SingleCopy.MPI_DEFAULT : SingleCopy.NONE, false,
                Runtime.getRuntime().availableProcessors()).ranks(ranks);
    }

    /**
     * {@link #run}, ended only when the job stalls: killed once its output has not grown for {@code stallSeconds}
     * (its ranks print progress as they go, see {@link Progress#join}), however long it runs while it moves. For
     * jobs whose length depends on the machine's load; the result says {@code STALLED} when the job was killed.
     */
    public static Result runWhileProgressing(Impl impl, int ranks, Map<String, String> env, long stallSeconds,
                                             Class<?> main, String... args) throws IOException, InterruptedException {
        List<String> line = commandLine(impl, ranks, env);
        line.addAll(javaCommand(main, args));
        return runProcess(line, env, stallSeconds, true);
    }

    /** Runs any command (e.g. a rank without a launcher) with the same timeout and capture. */
    public static Result runProcess(List<String> line, Map<String, String> env, long timeoutSeconds)
            throws IOException, InterruptedException {
        return runProcess(line, env, timeoutSeconds, false);
    }

    /** Kills the job after {@code seconds} in all, or (when {@code stall}) once its output stood still that long. */
    private static Result runProcess(List<String> line, Map<String, String> env, long seconds, boolean stall)
            throws IOException, InterruptedException {
        Path out = Files.createTempFile("dask4j-mpi-job", ".log");
        try {
            ProcessBuilder pb = new ProcessBuilder(line).redirectErrorStream(true).redirectOutput(out.toFile());
            pb.environment().putAll(env);
            Process process = pb.start();
            long limit = TimeUnit.SECONDS.toNanos(seconds);
            long movedAt = System.nanoTime();
            long size = 0;
            while (!process.waitFor(1, TimeUnit.SECONDS)) {
                long now = System.nanoTime();
                long grown = Files.size(out);
                if (stall && grown != size) {
                    size = grown;
                    movedAt = now;
                }
                if (now - movedAt >= limit) {
                    process.descendants().forEach(ProcessHandle::destroyForcibly);
                    process.destroyForcibly();
                    process.waitFor(10, TimeUnit.SECONDS);
                    String why = stall ? "STALLED: no output for " + seconds + " s\n" : "TIMED OUT after " + seconds + " s\n";
                    return new Result(-999, why + Files.readString(out, StandardCharsets.UTF_8));
                }
            }
            return new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
        }
    }

    private static Path launcherPath(Impl impl) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
            Path candidate = Path.of(dir, impl.launcher);
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }
}
