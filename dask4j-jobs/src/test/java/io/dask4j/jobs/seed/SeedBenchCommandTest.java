package io.dask4j.jobs.seed;

import io.dask4j.comm.JvmFlags;
import io.dask4j.jobs.AotCaches;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The seed command on tiny arrays over inproc, tcp and mpi, the mpirun command lines it starts, and its AOT caches. */
class SeedBenchCommandTest {

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void printsOneJsonObjectWithTheTimesAndAPlausibleSum() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int code = new CommandLine(new SeedBenchCommand(new PrintStream(bytes, true, StandardCharsets.UTF_8)))
                .execute("--backend", "inproc", "--n", "300", "--chunk", "100", "--workers", "2", "--runs", "3", "--json");
        assertThat(code).isZero();
        String line = bytes.toString(StandardCharsets.UTF_8).trim();
        @SuppressWarnings("unchecked")
        Map<String, Object> json = new ObjectMapper().readValue(line, Map.class);
        assertThat(json).containsKeys("backend", "n", "chunk", "workers", "layout", "median_s", "min_s", "max_s", "result");
        assertThat(json.get("layout")).isEqualTo("mirrors");
        assertThat(json.get("backend")).isEqualTo("inproc");
        assertThat(json.get("n")).isEqualTo(300);
        assertThat(json.get("chunk")).isEqualTo(100);
        assertThat(json.get("workers")).isEqualTo(2);
        assertThat(((Number) json.get("min_s")).doubleValue()).isLessThanOrEqualTo(((Number) json.get("median_s")).doubleValue());
        // x + x.T has mean 1, so the sum is close to n^2
        assertThat(((Number) json.get("result")).doubleValue()).isCloseTo(90_000, within(2_000.0));
        assertThat(SeedResult.fromJson(line).seconds()).hasSize(3);
    }

    /**
     * {@code --rereads}: x is released and persisted again on the same workers, each read timed, and the runs then
     * compute on the last x, which holds the same values as the first (same seed, fresh keys).
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void rereadsPersistXAgainOnTheSameWorkersAndTimeEachRead() throws Exception {
        SeedResult once = inprocResult("--rereads", "0");
        SeedResult thrice = inprocResult("--rereads", "2");
        assertThat(once.rereadSeconds()).isEmpty();
        assertThat(thrice.rereadSeconds()).hasSize(2).allSatisfy(s -> assertThat(s).isPositive());
        assertThat(thrice.result()).isEqualTo(once.result());
        assertThat(thrice.toText()).contains(", again [");
        // The tcp driver and the mpi ranks run the workload themselves: they are told the count.
        SeedBenchCommand cmd = new SeedBenchCommand();
        new CommandLine(cmd).parseArgs("--backend", "tcp", "--rereads", "3", "--aot-cache", "off");
        List<String> tcp = TcpSeedJob.command(cmd, cmd.aotCaches(TcpSeedJob.ROLES));
        assertThat(tcp.get(tcp.indexOf("--rereads") + 1)).isEqualTo("3");
        List<String> mpi = MpiSeedJob.command(cmd);
        assertThat(mpi.get(mpi.indexOf("--rereads") + 1)).isEqualTo("3");
    }

    private static SeedResult inprocResult(String... extra) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        List<String> args = new java.util.ArrayList<>(List.of("--backend", "inproc", "--n", "300", "--chunk", "100", "--workers", "2",
                "--runs", "1", "--warmup", "0", "--json"));
        args.addAll(List.of(extra));
        int code = new CommandLine(new SeedBenchCommand(new PrintStream(bytes, true, StandardCharsets.UTF_8))).execute(args.toArray(String[]::new));
        assertThat(code).isZero();
        return SeedResult.fromJson(bytes.toString(StandardCharsets.UTF_8).trim());
    }

    @Test
    void theMpiJobHasAnApplicationContextPerRoleEachWithTheClassPathFirst() {
        SeedBenchCommand cmd = new SeedBenchCommand();
        new CommandLine(cmd).parseArgs("--backend", "mpi", "--workers", "3", "--protocol", "tcp", "--n", "1000", "--layout", "row-major");
        List<String> line = MpiSeedJob.command(cmd);
        assertThat(line.get(line.indexOf("--layout") + 1)).isEqualTo("row-major");
        assertThat(contexts(line)).containsExactly("1 -", "1 -", "3 -");
        // Only the workers get the heap sized for their share of x; the scheduler and client ranks get the defaults.
        List<String> scheduler = line.subList(0, line.indexOf(":"));
        List<String> workers = line.subList(line.lastIndexOf(":"), line.size());
        // No huge pages: on the 2-core VM they made every first touch of a worker's fresh heap several times slower.
        assertThat(workers).contains("--in-mpi-job", "-Xmx517m", "-Xms517m").doesNotContain("-XX:+UseTransparentHugePages");
        assertThat(scheduler).contains("--in-mpi-job", "--enable-native-access=ALL-UNNAMED").noneMatch(a -> a.startsWith("-Xm"));
        // Open MPI's mpirun rewrites only the argument after the first one containing "cp" (JvmFlags.classPathFirst).
        for (int i = 0; i < line.size(); i++) {
            if (line.get(i).equals("-np")) {   // -np N java -cp CLASSPATH ...
                assertThat(line.subList(i + 3, i + 7)).isEqualTo(JvmFlags.classPathFirst(cmd.jobClassPath));
            }
        }
        assertThat(line.get(line.indexOf("--protocol") + 1)).isEqualTo("tcp");
    }

    /**
     * The whole mpi path on a tiny array: mpirun, 4 ranks, the result back as JSON. The class path, a JVM option,
     * the AOT cache directory and the log directory all contain "cp", which Open MPI's mpirun takes for a class path
     * flag (it rewrites the argument after the first one): with the class path first, only the class path is touched.
     */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void runsUnderOpenMpiEvenWhenAnArgumentContainsCp(@TempDir Path dir) throws Exception {
        boolean present = false;
        for (String d : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
            present |= Files.isExecutable(Path.of(d, "mpirun.openmpi"));
        }
        Assumptions.assumeTrue(present || System.getenv("DASK4J_REQUIRE_MPI") != null, "mpirun.openmpi not installed");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        SeedBenchCommand command = new SeedBenchCommand(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        command.jobClassPath = jarsOnly(dir.resolve("cpaul-jars"));
        int code = new CommandLine(command).execute(
                "--backend", "mpi", "--mpi", "openmpi", "--protocol", "tcp", "--n", "400", "--chunk", "200",
                "--workers", "2", "--runs", "1", "--warmup", "0", "--timeout", "150", "--worker-heap", "256m",
                "--jvm-arg=-XX:TieredStopAtLevel=1", "--jvm-arg=-Dx=/tmp/tcp", "--mpi-logs", dir.resolve("logs-tcp").toString(),
                "--json", "--aot-cache", dir.resolve("aot-cp").toString());
        String out = bytes.toString(StandardCharsets.UTF_8).trim();
        assertThat(code).as(out).isZero();
        SeedResult result = SeedResult.fromJson(out);
        assertThat(result.backend()).isEqualTo("mpirun-tcp");
        assertThat(result.result()).isCloseTo(160_000, within(4_000.0));
        // The job's one application context per role trained each role's cache, and only one worker trained.
        assertThat(result.aot()).isEqualTo("training");
        assertThat(cacheFiles(dir.resolve("aot-cp"))).containsExactlyInAnyOrder("client.aot", "scheduler.aot", "worker.aot");
    }

    /**
     * The tcp job runs in a fresh driver JVM: the first job trains the driver's and the workers' AOT caches, the
     * next starts every JVM with them, and both compute the same sum.
     */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void theTcpJobTrainsItsRoleCachesOnceThenStartsWithThem(@TempDir Path dir) throws Exception {
        String classPath = jarsOnly(dir.resolve("jars"));
        SeedResult first = runTcpJob(classPath, dir.resolve("aot"));
        assertThat(first.aot()).isEqualTo("training");
        assertThat(cacheFiles(dir.resolve("aot"))).containsExactlyInAnyOrder("driver.aot", "worker.aot");
        SeedResult second = runTcpJob(classPath, dir.resolve("aot"));
        assertThat(second.aot()).isEqualTo("cached");
        assertThat(second.backend()).isEqualTo("tcp");
        assertThat(second.result()).isEqualTo(first.result()).isCloseTo(160_000, within(4_000.0));
        assertThat(cacheFiles(dir.resolve("aot"))).containsExactlyInAnyOrder("driver.aot", "worker.aot");
    }

    @Test
    void withCachesTheMpiJobHasAnApplicationContextPerRoleAndOneTrainingWorker(@TempDir Path dir) throws Exception {
        SeedBenchCommand cmd = new SeedBenchCommand();
        new CommandLine(cmd).parseArgs("--backend", "mpi", "--workers", "3", "--n", "1000", "--aot-cache", dir.toString());
        cmd.jobClassPath = dir.resolve("app.jar").toString();
        io.dask4j.jobs.AotCaches caches = cmd.aotCaches(MpiSeedJob.roles(cmd));
        List<String> training = MpiSeedJob.command(cmd, caches);
        assertThat(contexts(training)).containsExactly("1 scheduler.staging", "1 client.staging", "1 worker.staging", "2 -");
        for (String role : MpiSeedJob.roles(cmd)) {
            Files.writeString(caches.directory().resolve(role + ".aot"), "x");
        }
        List<String> cached = MpiSeedJob.command(cmd, caches);
        assertThat(contexts(cached)).containsExactly("1 scheduler.aot", "1 client.aot", "3 worker.aot");
        assertThat(SeedBenchCommand.aotState(caches, MpiSeedJob.roles(cmd))).isEqualTo("cached");
        assertThat(cached.stream().filter(a -> a.equals("--in-mpi-job")).count()).isEqualTo(3);
    }

    @Test
    void withTheClientBesideTheSchedulerTheMpiJobRunsOneRankFewerInOneServiceContext(@TempDir Path dir) throws Exception {
        SeedBenchCommand cmd = new SeedBenchCommand();
        new CommandLine(cmd).parseArgs("--backend", "mpi", "--workers", "3", "--client-rank", "0", "--aot-cache", dir.toString());
        cmd.jobClassPath = dir.resolve("app.jar").toString();
        io.dask4j.jobs.AotCaches caches = cmd.aotCaches(MpiSeedJob.roles(cmd));
        for (String role : MpiSeedJob.roles(cmd)) {
            Files.writeString(caches.directory().resolve(role + ".aot"), "x");
        }
        List<String> line = MpiSeedJob.command(cmd, caches);
        assertThat(contexts(line)).containsExactly("1 scheduler+client.aot", "3 worker.aot");
        assertThat(line.get(line.indexOf("--client-rank") + 1)).isEqualTo("0");
    }

    /** Per application context of an mpirun line: its rank count and the file of its AOT option, or "-". */
    private static List<String> contexts(List<String> line) {
        List<String> out = new java.util.ArrayList<>();
        for (int i = 0; i < line.size(); i++) {
            if (line.get(i).equals("-np")) {
                String aot = "-";
                for (int j = i + 2; j < line.size() && !line.get(j).equals(":"); j++) {
                    if (line.get(j).startsWith("-XX:AOTCache")) {
                        String file = Path.of(line.get(j).substring(line.get(j).indexOf('=') + 1)).getFileName().toString();
                        aot = file.contains(".staging-") ? file.substring(0, file.indexOf("-")) : file;
                    }
                }
                out.add(line.get(i + 1) + " " + aot);
            }
        }
        return out;
    }

    @Test
    void withADirectoryOnTheClassPathTheJobRunsWithoutCaches(@TempDir Path dir) throws Exception {
        SeedBenchCommand cmd = new SeedBenchCommand();
        new CommandLine(cmd).parseArgs("--backend", "tcp", "--aot-cache", dir.toString());
        Path classes = Files.createDirectories(dir.resolve("classes"));
        Files.writeString(classes.resolve("A.class"), "class");
        cmd.jobClassPath = dir.resolve("lib.jar") + File.pathSeparator + classes;
        assertThat(cmd.aotCaches(TcpSeedJob.ROLES).enabled()).isFalse();
        assertThat(TcpSeedJob.command(cmd, cmd.aotCaches(TcpSeedJob.ROLES))).noneMatch(a -> a.contains("AOTCache"));
    }

    /** The cache directory goes after the class path options, where Open MPI's mpirun rewrites nothing. */
    @Test
    void aCacheDirectoryContainingCpKeepsTheCachesUnderEitherMpi(@TempDir Path dir) throws Exception {
        for (String mpi : List.of("openmpi", "mpich")) {
            SeedBenchCommand cmd = new SeedBenchCommand();
            new CommandLine(cmd).parseArgs("--backend", "mpi", "--mpi", mpi, "--aot-cache", dir.resolve("scratch-cpu").toString());
            cmd.jobClassPath = dir.resolve("app.jar").toString();
            assertThat(cmd.aotCaches(MpiSeedJob.roles(cmd)).enabled()).as(mpi).isTrue();
        }
    }

    /**
     * This test JVM's class path with each directory (Maven's target/classes) packed into a jar of its own: the
     * JDK's AOT cache takes jars only.
     */
    private static String jarsOnly(Path dir) throws java.io.IOException {
        Files.createDirectories(dir);
        List<String> entries = new java.util.ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path path = Path.of(entry);
            if (!Files.isDirectory(path)) {
                entries.add(entry);
                continue;
            }
            Path jar = dir.resolve("dir-" + entries.size() + ".jar");
            try (var out = new java.util.jar.JarOutputStream(Files.newOutputStream(jar));
                 var files = Files.walk(path)) {
                for (Path file : files.filter(Files::isRegularFile).toList()) {
                    out.putNextEntry(new java.util.jar.JarEntry(path.relativize(file).toString().replace(File.separatorChar, '/')));
                    Files.copy(file, out);
                    out.closeEntry();
                }
            }
            entries.add(jar.toString());
        }
        return String.join(File.pathSeparator, entries);
    }

    private static SeedResult runTcpJob(String classPath, Path aot) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        SeedBenchCommand command = new SeedBenchCommand(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        command.jobClassPath = classPath;
        int code = new CommandLine(command).execute(
                "--backend", "tcp", "--n", "400", "--chunk", "200", "--workers", "2", "--runs", "1", "--warmup", "0",
                "--timeout", "150", "--worker-heap", "256m", "--json", "--aot-cache", aot.toString());
        String out = bytes.toString(StandardCharsets.UTF_8).trim();
        assertThat(code).as(out).isZero();
        return SeedResult.fromJson(out);
    }

    /** The file names in the one job directory under an AOT-cache root. */
    private static List<String> cacheFiles(Path root) throws java.io.IOException {
        try (var jobs = Files.list(root)) {
            List<Path> dirs = jobs.toList();
            assertThat(dirs).hasSize(1);
            try (var files = Files.list(dirs.getFirst())) {
                return files.map(f -> f.getFileName().toString()).toList();
            }
        }
    }

    @Test
    void aJvmOptionContainingCpGoesAfterTheClassPathOptionsUnderEitherMpi() {
        for (String mpi : List.of("openmpi", "mpich")) {
            SeedBenchCommand cmd = new SeedBenchCommand();
            new CommandLine(cmd).parseArgs("--backend", "mpi", "--mpi", mpi, "--jvm-arg=-Djava.io.tmpdir=/scratch/tcp");
            List<String> line = MpiSeedJob.command(cmd);
            assertThat(line).as(mpi).containsSubsequence("--class-path", cmd.jobClassPath, "-Djava.io.tmpdir=/scratch/tcp",
                    SeedBenchCommand.class.getName());
        }
    }

    @Test
    void resultsRoundTripThroughJson() {
        SeedResult r = new SeedResult("tcp", 10, 5, 3, "mirrors", List.of(3.0, 1.0, 2.0), List.of(9.0), 0.5, List.of(0.25, 0.125), 123.5, "cached",
                io.dask4j.jobs.ProcessLayout.mpi(3, 0));
        SeedResult back = SeedResult.fromJson(r.toJson());
        assertThat(back).isEqualTo(r);
        assertThat(back.median()).isEqualTo(2.0);
        assertThat(back.min()).isEqualTo(1.0);
        assertThat(back.max()).isEqualTo(3.0);
        assertThat(r.toText()).contains("layout=mirrors").contains("median=2.000s").contains("sum=1.235000e+02");
    }

    /**
     * Bad input is refused before any work or job starts, with the message, the usage and exit code 2; before,
     * {@code --n -3} and {@code --chunk 0} ended in stack traces.
     */
    @ParameterizedTest
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    @CsvSource(delimiter = '|', textBlock = """
            --n -3                                  | --n must be at least 1, got -3
            --chunk 0                               | --chunk: chunk sizes must be positive, got 0 x 0
            --chunk lots                            | --chunk: chunks must be 'auto', N or RxC, got 'lots'
            --workers 0                             | --workers must be at least 1, got 0
            --runs 0                                | --runs must be at least 1, got 0
            --warmup -1                             | --warmup must be at least 0, got -1
            --rereads -2                            | --rereads must be at least 0, got -2
            --backend carrier-pigeon                | unknown --backend 'carrier-pigeon': expected inproc, tcp or mpi
            --layout diagonal                       | unknown --layout 'diagonal': expected mirrors or row-major
            --backend mpi --mpi bogus               | unknown --mpi 'bogus': expected openmpi or mpich
            """)
    void badInputIsRefusedBeforeAnythingStarts(String args, String message) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CommandLine line = new CommandLine(new SeedBenchCommand());
        line.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
        assertThat(line.execute(args.split(" "))).isEqualTo(2);
        String text = err.toString(StandardCharsets.UTF_8);
        assertThat(text.lines().findFirst().orElseThrow()).isEqualTo(message);
        assertThat(text).contains("Usage: seed");
    }
}
