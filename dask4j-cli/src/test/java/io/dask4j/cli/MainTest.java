package io.dask4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class MainTest {

    private record Run(int code, String out, String err) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new Main());
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int code = cli.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void helpListsEveryCommandANewcomerNeeds() {
        Run r = run("--help");
        assertThat(r.code()).isZero();
        assertThat(r.out()).contains("demo", "scheduler", "worker", "mpi", "bench", "./dask4j test");
    }

    @Test
    void benchListsCommTasksAndSeed() {
        Run r = run("bench", "--help");
        assertThat(r.code()).isZero();
        assertThat(r.out()).contains("comm", "tasks", "seed");
    }

    @Test
    void benchCommRejectsAnUnknownBackendWithAClearMessage() {
        Run r = run("bench", "comm", "--backend", "carrier-pigeon");
        assertThat(r.code()).isNotZero();
        assertThat(r.err()).contains("unknown backend 'carrier-pigeon'", "tcp, inproc or mpi");
    }

    @Test
    void benchCommHelpListsTheChosenBackendsOptions() {
        Run tcp = run("bench", "comm", "--help");
        assertThat(tcp.code()).isZero();
        assertThat(tcp.out()).contains("--backend", "Options of the tcp benchmark", "--sizes", "--json");

        Run mpi = run("bench", "comm", "--backend", "mpi", "--help");
        assertThat(mpi.code()).isZero();
        assertThat(mpi.out()).contains("Options of the mpi benchmark", "--mpi", "--heap-frames", "--min-rounds");
    }

    @Test
    void anUnknownCommandFailsWithUsage() {
        Run r = run("frobnicate");
        assertThat(r.code()).isNotZero();
        assertThat(r.err()).contains("frobnicate");
    }

    @Test
    void versionNamesTheJavaRuntime() {
        Run r = run("--version");
        assertThat(r.code()).isZero();
        assertThat(r.out()).contains("dask4j", "Java " + Runtime.version().feature());
    }
}
