package io.dask4j.bench.report;

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
 * DIR/logs/}. A benchmark that fails is listed in the report and the others still run; the exit code is then 1.
 * Called by picocli on the CLI's main thread.
 */
@Command(name = "report", mixinStandardHelpOptions = true,
        description = "Runs the standard benchmarks and writes a Markdown report with SVG charts into a directory.")
public final class ReportCommand implements Callable<Integer> {

    @Option(names = "--out", required = true, description = "directory for report.md, the charts and logs/")
    Path out;

    @Option(names = "--quick", description = "inproc only, small sizes, few rounds: checks the report, measures nothing")
    boolean quick;

    @Option(names = "--timeout", defaultValue = "1800", description = "seconds one benchmark may take (default: ${DEFAULT-VALUE})")
    long timeoutSeconds;

    @Override
    public Integer call() throws Exception {
        Files.createDirectories(out);
        MachineInfo machine = MachineInfo.probe();
        BenchProcess bench = new BenchProcess(out.resolve("logs"), timeoutSeconds);
        ReportData data = new ReportData();
        StandardSet.run(quick, machine, bench, data);
        List<String> charts = ReportCharts.write(data, out);
        Path report = out.resolve("report.md");
        Files.writeString(report, ReportMarkdown.render(machine, data, charts, bench.failures, quick), StandardCharsets.UTF_8);
        System.out.println("report: " + report.toAbsolutePath() + " (" + charts.size() + " charts)");
        bench.failures.forEach(f -> System.out.println("failed: " + f));
        return bench.failures.isEmpty() ? 0 : 1;
    }
}
