package io.dask4j.bench;

import io.dask4j.jobs.NestedCommands;
import io.dask4j.bench.comm.CommBenchCommand;
import io.dask4j.bench.mpi.MpiCommBenchCommand;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Unmatched;

/**
 * {@code dask4j bench comm --backend tcp|tls|inproc|mpi ...}: one entry for the comm benchmarks, routing to
 * the tcp/inproc benchmark (two JVMs or two threads) or to the mpi one (which starts mpirun itself).
 * Other options are passed through; {@code --help} shows this command's options, then the chosen backend's.
 * Called by picocli on the CLI's main thread.
 */
@Command(name = "comm", description = "Comm latency and bandwidth: tcp, tls and inproc here, mpi under mpirun.",
        usageHelpAutoWidth = true)
final class BenchCommCommand implements Callable<Integer> {

    @Option(names = "--backend", defaultValue = "tcp", description = "tcp, tls, inproc or mpi (default: ${DEFAULT-VALUE})")
    String backend;

    // Not picocli's usageHelp: that prints this router's usage and returns before call(), where the
    // backend (and so the options the user is asking about) is known.
    @Option(names = {"-h", "--help"}, description = "Show this help and the chosen backend's options.")
    boolean help;

    @Unmatched
    List<String> rest = new ArrayList<>();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        List<String> args = new ArrayList<>(rest);
        Object target;
        switch (backend) {
            case "mpi" -> target = new MpiCommBenchCommand();
            case "tcp", "tls", "inproc" -> {
                target = new CommBenchCommand();
                args.addAll(0, List.of("--backend", backend));
            }
            default -> throw new CommandLine.ParameterException(spec.commandLine(),
                    "unknown backend '" + backend + "': expected tcp, tls, inproc or mpi");
        }
        CommandLine benchmark = NestedCommands.nested(spec, target, spec.qualifiedName());
        if (help) {
            PrintWriter out = spec.commandLine().getOut();
            spec.commandLine().usage(out);
            out.println();
            out.println("Options of the " + backend + " benchmark (passed through):");
            benchmark.usage(out);
            out.flush();
            return 0;
        }
        return benchmark.execute(args.toArray(String[]::new));
    }
}
