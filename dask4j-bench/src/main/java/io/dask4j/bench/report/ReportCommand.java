package io.dask4j.bench.report;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code dask4j bench report --out DIR [--quick]}: runs the standard benchmark set ({@link StandardSet}) and writes
 * {@code DIR/report.md} (the machine, tables) and SVG charts beside it; each benchmark's output goes to {@code
 * DIR/logs/}. Every benchmark has a bound ({@link Bounds}); one that fails or runs past it is listed in the report,
 * with what it measured before, and the others still run; the exit code is then 1.
 * Called by picocli on the CLI's main thread.
 */
@Command(name = "report", mixinStandardHelpOptions = true,
        description = "Runs the standard benchmarks and writes a Markdown report with SVG charts into a directory.")
public final class ReportCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--out", required = true, description = "directory for report.md, the charts and logs/")
    Path out;

    @Option(names = "--quick", description = "inproc only, small sizes, few rounds: checks the report, measures nothing")
    boolean quick;

    @Option(names = "--timeout", description = "seconds any one benchmark may take (default: by section: a comm job "
            + "240, bench tasks 420, a seed run 600, Python Dask's seed 900)")
    Long timeoutSeconds;

    @Override
    public Integer call() throws Exception {
        Files.createDirectories(out);
        MachineInfo machine = MachineInfo.probe();
        if (timeoutSeconds != null && timeoutSeconds < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--timeout must be at least 1 s");
        }
        Bounds bounds = timeoutSeconds == null ? Bounds.DEFAULT : Bounds.all(timeoutSeconds);
        BenchProcess bench = new BenchProcess(out.resolve("logs"));
        ReportData data = new ReportData();
        StandardSet.run(quick, machine, bounds, bench, data);
        List<String> charts = ReportCharts.write(data, out);
        Path report = out.resolve("report.md");
        List<String> failures = bench.failures();
        Files.writeString(report, ReportMarkdown.render(machine, data, charts, bench.runs, failures, quick),
                StandardCharsets.UTF_8);
        System.out.println("report: " + report.toAbsolutePath() + " (" + charts.size() + " charts)");
        failures.forEach(f -> System.out.println("failed: " + f));
        return failures.isEmpty() ? 0 : 1;
    }
}
