package io.dask4j.bench.seed;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** The seed command on a tiny array over inproc, and the mpirun command line it would start. */
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

    @Test
    void theMpiJobHasWorkersPlusTwoRanksAndNoArgumentEndingInCp() {
        SeedBenchCommand cmd = new SeedBenchCommand();
        new CommandLine(cmd).parseArgs("--backend", "mpi", "--workers", "3", "--protocol", "tcp", "--n", "1000", "--layout", "row-major");
        List<String> line = MpiSeedJob.command(cmd);
        assertThat(line.get(line.indexOf("--layout") + 1)).isEqualTo("row-major");
        assertThat(line.get(line.indexOf("-np") + 1)).isEqualTo("5");
        assertThat(line).contains("--in-mpi-job", "-Xmx517m", "-Xms517m", "-XX:+UseTransparentHugePages");
        assertThat(line.subList(line.indexOf("--class-path") + 2, line.size())).noneMatch(a -> a.endsWith("cp"));
    }

    /**
     * The whole mpi path on a tiny array: mpirun, 4 ranks, the result back as JSON. The log directory ends in
     * "tcp", which Open MPI's mpirun takes for a class path flag (it rewrites the argument after it).
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
        int code = new CommandLine(new SeedBenchCommand(new PrintStream(bytes, true, StandardCharsets.UTF_8))).execute(
                "--backend", "mpi", "--mpi", "openmpi", "--protocol", "tcp", "--n", "400", "--chunk", "200",
                "--workers", "2", "--runs", "1", "--warmup", "0", "--timeout", "150", "--worker-heap", "256m",
                "--jvm-arg=-XX:TieredStopAtLevel=1", "--mpi-logs", dir.resolve("logs-tcp").toString(), "--json");
        String out = bytes.toString(StandardCharsets.UTF_8).trim();
        assertThat(code).as(out).isZero();
        SeedResult result = SeedResult.fromJson(out);
        assertThat(result.backend()).isEqualTo("mpirun-tcp");
        assertThat(result.result()).isCloseTo(160_000, within(4_000.0));
    }

    @Test
    void aJvmOptionThatOpenMpiWouldRewriteIsRefusedWithTheReason() {
        SeedBenchCommand cmd = new SeedBenchCommand();
        new CommandLine(cmd).parseArgs("--backend", "mpi", "--jvm-arg=-Djava.io.tmpdir=/scratch/tcp");
        assertThatThrownBy(() -> MpiSeedJob.command(cmd)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("/scratch/tcp").hasMessageContaining("Open MPI");
        new CommandLine(cmd).parseArgs("--backend", "mpi", "--mpi", "mpich", "--jvm-arg=-Djava.io.tmpdir=/scratch/tcp");
        assertThat(MpiSeedJob.command(cmd)).contains("-Djava.io.tmpdir=/scratch/tcp");
    }

    @Test
    void resultsRoundTripThroughJson() {
        SeedResult r = new SeedResult("tcp", 10, 5, 3, "mirrors", List.of(3.0, 1.0, 2.0), List.of(9.0), 0.5, 123.5);
        SeedResult back = SeedResult.fromJson(r.toJson());
        assertThat(back).isEqualTo(r);
        assertThat(back.median()).isEqualTo(2.0);
        assertThat(back.min()).isEqualTo(1.0);
        assertThat(back.max()).isEqualTo(3.0);
        assertThat(r.toText()).contains("layout=mirrors").contains("median=2.000s").contains("sum=1.235000e+02");
    }
}
