package io.dask4j.bench;

import io.dask4j.bench.floor.FillFloorCommand;
import io.dask4j.bench.report.ReportCommand;
import io.dask4j.jobs.ExtraCommand;
import io.dask4j.jobs.seed.SeedBenchCommand;
import io.dask4j.bench.tasks.TasksBenchCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code dask4j bench comm|tasks|seed|report|fill-floor}: the end-to-end benchmarks (their goals and
 * figures: docs/benchmarks.md), and the floor that array reads are compared with (docs/arrays.md).
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Benchmarks: comm latency and bandwidth, scheduler throughput, the seed array workload, a report with charts, the floor of reading into fresh heap.",
        subcommands = {BenchCommCommand.class, TasksBenchCommand.class, SeedBenchCommand.class, ReportCommand.class,
                FillFloorCommand.class})
public final class BenchCommand implements Runnable, ExtraCommand {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public String name() {
        return "bench";
    }

    @Override
    public Object command() {
        return this;
    }

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }
}
