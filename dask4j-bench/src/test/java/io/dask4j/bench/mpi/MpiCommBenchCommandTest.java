package io.dask4j.bench.mpi;

import org.junit.jupiter.api.Test;
import io.dask4j.bench.MpiJobs;
import picocli.CommandLine;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MpiCommBenchCommandTest {

    private static MpiCommBenchCommand parse(String... args) {
        MpiCommBenchCommand command = new MpiCommBenchCommand();
        new CommandLine(command).parseArgs(args);
        return command;
    }

    @Test
    void openMpiJobsRunTwoRanksOfThisJavaWithTheLongClassPathOption() {
        List<String> line = parse("--mpi", "openmpi", "--sizes", "8,1024", "--iterations", "100").command();
        assertThat(line).startsWith(MpiJobs.launcherOptions("openmpi", 2).toArray(String[]::new));
        assertThat(line).contains("--allow-run-as-root", "--oversubscribe", "--class-path", "--enable-native-access=ALL-UNNAMED",
                MpiBenchRank.class.getName(), "8,1024", "100", "native").doesNotContain("-cp");
        assertThat(line.get(line.indexOf("-np") + 1)).isEqualTo("2");
    }

    @Test
    void mpichJobsUseTheMpichLauncher() {
        List<String> line = parse("--mpi", "MPICH", "--heap-frames").command();
        assertThat(line).startsWith(MpiJobs.launcherOptions("mpich", 2).toArray(String[]::new));
        assertThat(line).contains("8,1024,1048576,16777216,67108864", "heap");
    }

    @Test
    void jvmArgumentsGoBeforeTheClassPathAndMinRoundsLast() {
        List<String> line = parse("--jvm-arg=-Ddask4j.mpi.pooledFrameBytes=4096", "--min-rounds", "60").command();
        assertThat(line.indexOf("-Ddask4j.mpi.pooledFrameBytes=4096")).isPositive().isLessThan(line.indexOf("--class-path"));
        assertThat(line.getLast()).isEqualTo("60");
    }

    @Test
    void anUnknownMpiIsACommandLineError() {
        assertThatThrownBy(() -> parse("--mpi", "lam").command())
                .isInstanceOf(CommandLine.ParameterException.class).hasMessageContaining("openmpi or mpich");
    }

    @Test
    void largeSizesGetFewerRoundsButAtLeastTen() {
        assertThat(MpiBenchRank.roundsFor(8, 20_000)).isEqualTo(20_000);
        assertThat(MpiBenchRank.roundsFor(64L << 20, 20_000)).isEqualTo(16);
        assertThat(MpiBenchRank.roundsFor(1L << 30, 20_000)).isEqualTo(10);
    }
}
