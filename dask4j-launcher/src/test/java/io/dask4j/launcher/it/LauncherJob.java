package io.dask4j.launcher.it;

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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real {@code mpirun -np N java ...} (or {@code srun -n N java ...}) job of the test class path, under Open MPI
 * or MPICH, started in the background: tests wait for it with a bound (the whole process tree is killed when it
 * expires), read its output and its ranks' log files, and check that none of its processes is left. A launcher
 * that is not installed skips the test, unless {@code DASK4J_REQUIRE_MPI=1} (for Slurm, {@code
 * DASK4J_REQUIRE_SLURM=1}) makes it a failure.
 */
public final class LauncherJob {

    /** The two MPI implementations and their launchers. */
    public enum Impl {
        OPENMPI("openmpi", "mpirun.openmpi"), MPICH("mpich", "mpirun.mpich");

        final String kind;
        final String launcher;

        Impl(String kind, String launcher) {
            this.kind = kind;
            this.launcher = launcher;
        }

        /** Its launcher, the ranks finding their library by its environment as a user's own job does. */
        MpiCommandLine commandLine(SingleCopy singleCopy) {
            return new MpiCommandLine(kind, launcher, singleCopy, false, Runtime.getRuntime().availableProcessors());
        }
    }

    /**
     * Slurm's {@code srun} with the PMI plugin each MPI library of these machines works with. Nothing names the
     * library: the binding picks it from the environment (PMI_RANK, set by the PMI-2 plugin, puts MPICH first).
     */
    public enum Srun {
        /** Open MPI 4.1 through PMIx. */
        OPENMPI_PMIX("pmix"),
        /** MPICH 4.0 through PMI-2. */
        MPICH_PMI2("pmi2");

        final String plugin;

        Srun(String plugin) {
            this.plugin = plugin;
        }
    }

    /** How a job ended. */
    public record Result(int exitCode, String output, long millis) {
        public int count(String text) {
            int n = 0;
            for (int i = output.indexOf(text); i >= 0; i = output.indexOf(text, i + 1)) {
                n++;
            }
            return n;
        }
    }

    private static final Pattern PID = Pattern.compile("host .*, pid (\\d+)");
    private static String slurmState;

    public final Process process;
    public final Path output;
    final long startNanos = System.nanoTime();

    private LauncherJob(Process process, Path output) {
        this.process = process;
        this.output = output;
    }

    public static void assumeInstalled(Impl impl) {
        boolean present = false;
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
            present |= Files.isExecutable(Path.of(dir, impl.launcher));
        }
        boolean required = "1".equals(System.getenv("DASK4J_REQUIRE_MPI")) || "1".equals(System.getProperty("DASK4J_REQUIRE_MPI"));
        if (!present && required) {
            throw new AssertionError(impl.launcher + " not found on PATH and DASK4J_REQUIRE_MPI=1");
        }
        Assumptions.assumeTrue(present, impl.launcher + " not installed");
    }

    /**
     * Skips the test unless Slurm answers here ({@code srun} on the PATH and a partition up), or fails it with
     * {@code DASK4J_REQUIRE_SLURM=1} (CI starts a one-node Slurm, see {@code .ci/slurm-single-node}).
     */
    static void assumeSlurm() throws InterruptedException {
        String state = slurmState();
        boolean up = state.lines().anyMatch("up"::equals);
        if (!up && "1".equals(System.getenv("DASK4J_REQUIRE_SLURM"))) {
            throw new AssertionError("Slurm is not up and DASK4J_REQUIRE_SLURM=1: " + state.strip());
        }
        Assumptions.assumeTrue(up, "no Slurm partition up: " + state.strip());
    }

    /** What {@code sinfo} says of the partitions, asked once per test JVM (it takes 9 s to fail without a controller). */
    private static synchronized String slurmState() throws InterruptedException {
        if (slurmState == null) {
            try {
                Process sinfo = new ProcessBuilder("sinfo", "--noheader", "--format", "%a").redirectErrorStream(true).start();
                slurmState = sinfo.waitFor(15, TimeUnit.SECONDS)
                        ? new String(sinfo.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
                        : "no answer from sinfo within 15 s";
                sinfo.destroyForcibly();
            } catch (IOException e) {
                slurmState = "sinfo not runnable: " + e.getMessage();
            }
        }
        return slurmState;
    }

    /** Starts {@code ranks} JVMs running {@code main args} in {@code dir} under {@code mpirun}. */
    public static LauncherJob start(Impl impl, int ranks, Path dir, Class<?> main, String... args) throws IOException {
        return start(impl.commandLine(SingleCopy.NONE).ranks(ranks), dir, main, args);
    }

    /**
     * Starts a job across the nodes of {@code cluster}: {@code hosts} as both launchers take it ({@code
     * node:slots,...}, ranks filled in that order), logging in through the cluster's rsh agent; Open MPI's
     * control and TCP traffic, and MPICH's launcher, kept to the cluster's subnet.
     */
    public static LauncherJob start(Impl impl, VirtualCluster cluster, String hosts, int ranks, Path dir, Class<?> main,
                             String... args) throws IOException {
        List<String> line = impl.commandLine(SingleCopy.MPI_DEFAULT).launcherOptions(ranks);
        if (impl == Impl.OPENMPI) {
            line.addAll(List.of("--mca", "plm_rsh_agent", cluster.rshAgent(),
                    "--mca", "btl_tcp_if_include", cluster.subnet(), "--mca", "oob_tcp_if_include", cluster.subnet(),
                    "--host", hosts));
        } else {
            // UCX (MPICH's transport) cannot tell these nodes apart from one machine: its shared-memory transports
            // would reach "another node" by process number and hang (even a C program's MPI_Finalize). Real nodes
            // do not have that problem; here UCX keeps to TCP, between nodes and within one.
            line.addAll(List.of("-launcher", "ssh", "-launcher-exec", cluster.rshAgent(), "-iface", cluster.bridge(),
                    "-genv", "UCX_TLS", "self,tcp", "-hosts", hosts));
        }
        line.addAll(List.of("-np", Integer.toString(ranks)));
        return start(line, dir, main, args);
    }

    /**
     * Starts {@code ranks} JVMs running {@code main args} in {@code dir} as one {@code srun} job step, with the
     * options of docs/mpi-and-slurm.md: {@code --kill-on-bad-exit=1} ends the step when a rank dies (with PMI-2 Slurm would
     * otherwise leave the others running until the scheduler rank misses the dead worker's heartbeats).
     */
    static LauncherJob start(Srun srun, int ranks, Path dir, Class<?> main, String... args) throws IOException {
        return start(MpiCommandLine.srun(srun.plugin, ranks), dir, main, args);
    }

    /**
     * Starts an {@code srun} job step across the nodes of {@code cluster}, on the cluster's own Slurm ({@link
     * VirtualCluster#slurm}): {@code hosts} as for {@code mpirun} ({@code node:slots,...}, ranks filled in that
     * order), given to Slurm as an arbitrary distribution ({@code SLURM_HOSTFILE}, one line per rank).
     */
    public static LauncherJob start(Srun srun, VirtualCluster cluster, String hosts, int ranks, Path dir, Class<?> main,
                                    String... args) throws IOException, InterruptedException {
        return start(srun, cluster, hosts, ranks, Map.of(), dir, main, args);
    }

    /** As above, with {@code environment} added to the job's (srun passes it on to the ranks). */
    public static LauncherJob start(Srun srun, VirtualCluster cluster, String hosts, int ranks, Map<String, String> environment,
                                    Path dir, Class<?> main, String... args) throws IOException, InterruptedException {
        List<String> perRank = new ArrayList<>();
        for (String host : hosts.split(",")) {
            String[] nameAndSlots = host.split(":");
            for (int i = 0; i < Integer.parseInt(nameAndSlots[1]); i++) {
                perRank.add(nameAndSlots[0]);
            }
        }
        Path hostfile = Files.write(dir.resolve("slurm-hosts"), perRank);
        List<String> line = MpiCommandLine.srun(srun.plugin, ranks);
        line.add("--distribution=arbitrary");
        Map<String, String> env = new HashMap<>(environment);
        env.put("SLURM_CONF", cluster.slurm().toString());
        env.put("SLURM_HOSTFILE", hostfile.toString());
        if (srun == Srun.MPICH_PMI2) {
            // UCX on these nodes keeps to TCP, as for mpirun above; srun passes the environment on to the ranks.
            env.put("UCX_TLS", "self,tcp");
        }
        return start(line, env, dir, main, args);
    }

    private static LauncherJob start(List<String> launcher, Path dir, Class<?> main, String... args)
            throws IOException {
        return start(launcher, Map.of(), dir, main, args);
    }

    private static LauncherJob start(List<String> launcher, Map<String, String> env, Path dir, Class<?> main,
                                     String... args) throws IOException {
        List<String> line = new ArrayList<>(launcher);
        line.addAll(java(dir, main));
        line.addAll(List.of(args));
        Path out = dir.resolve("job-output.txt");
        ProcessBuilder builder = new ProcessBuilder(line).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(out.toFile());
        builder.environment().putAll(env);
        return new LauncherJob(builder.start(), out);
    }

    /** A JVM of the test class path running {@code main} with the job tests' options, its temporary files in {@code dir}. */
    public static List<String> java(Path dir, Class<?> main) throws IOException {
        Path tmp = Files.createDirectories(dir.resolve("tmp"));
        List<String> jvmArgs = new ArrayList<>(JvmFlags.QUICK_START);
        jvmArgs.add(JvmFlags.STACK);
        // Ranks of virtual nodes have their own process numbers but share /tmp, where the JVM's perf data
        // file is named by pid: without this, two JVMs of one number warn that the file is locked.
        jvmArgs.add("-XX:-UsePerfData");
        // Worker directories go under the test's directory: ranks that a test kills cannot remove theirs.
        jvmArgs.add("-Djava.io.tmpdir=" + tmp);
        return JvmFlags.javaCommand(Path.of(System.getProperty("java.home"), "bin", "java").toString(), jvmArgs,
                System.getProperty("java.class.path"), main.getName(), List.of());
    }

    /** Waits for the end, killing the process tree after {@code seconds}. */
    public Result await(long seconds) throws IOException, InterruptedException {
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
            return new Result(-999, "TIMED OUT after " + seconds + " s\n" + output(), millis());
        }
        return new Result(process.exitValue(), output(), millis());
    }

    public String output() throws IOException {
        return Files.readString(output, StandardCharsets.UTF_8);
    }

    long millis() {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    /** Waits until {@code file} exists and contains {@code text}; false if the job ended or time ran out first. */
    public boolean awaitText(Path file, String text, long seconds) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() - deadline < 0) {
            if (Files.exists(file) && Files.readString(file, StandardCharsets.UTF_8).contains(text)) {
                return true;
            }
            if (!process.isAlive()) {
                return false;
            }
            Thread.sleep(100);
        }
        return false;
    }

    /** The pid a rank wrote in its log header. */
    public static long pidOf(Path log) throws IOException {
        Matcher m = PID.matcher(Files.readString(log, StandardCharsets.UTF_8));
        if (!m.find()) {
            throw new AssertionError("no pid in the header of " + log);
        }
        return Long.parseLong(m.group(1));
    }

    /** The pids of the ranks (from their log headers) still alive a few seconds after the job ended. */
    public static List<Long> survivors(Path logs, int ranks) throws IOException, InterruptedException {
        List<Long> pids = new ArrayList<>();
        for (int r = 0; r < ranks; r++) {
            pids.add(pidOf(logs.resolve("rank-" + r + ".log")));
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        List<Long> alive;
        do {
            alive = pids.stream().filter(p -> ProcessHandle.of(p).map(ProcessHandle::isAlive).orElse(false)).toList();
            if (alive.isEmpty()) {
                return alive;
            }
            Thread.sleep(100);
        } while (System.nanoTime() - deadline < 0);
        alive.forEach(p -> ProcessHandle.of(p).ifPresent(ProcessHandle::destroyForcibly));
        return alive;
    }
}
