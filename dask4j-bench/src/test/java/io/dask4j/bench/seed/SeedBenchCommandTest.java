package io.dask4j.bench.seed;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
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
        assertThat(line).contains("--in-mpi-job", "-Xmx517m", "-Xms517m");
        assertThat(line.subList(line.indexOf("--class-path") + 2, line.size())).noneMatch(a -> a.endsWith("cp"));
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
