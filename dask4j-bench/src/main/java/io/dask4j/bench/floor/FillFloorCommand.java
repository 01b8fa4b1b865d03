package io.dask4j.bench.floor;

import io.dask4j.jobs.OptionChecks;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code dask4j bench fill-floor CHUNK_LIST}: the floor for reading an array file into fresh JVM heap ({@link
 * JvmFillFloor}), to compare dask4j's reads with, beside {@code fill_floor.py}'s floor for fresh NumPy buffers.
 * Runs on the calling thread.
 */
@Command(name = "fill-floor", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Reader JVMs copy every n-th chunk of CHUNK_LIST (lines 'path offset length', as "
                + "fill_floor.py --list writes them) into fresh double[]s, doing nothing else; prints per read the "
                + "slowest reader's seconds (later reads reuse heap the earlier ones touched)")
public final class FillFloorCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "CHUNK_LIST", description = "the chunks, one per line: path offset length")
    Path list;

    @Option(names = "--readers", defaultValue = "3", description = "reader JVMs, as workers (default: ${DEFAULT-VALUE})")
    int readers;

    @Option(names = "--reads", defaultValue = "4", description = "reads, all readers at once each time (default: ${DEFAULT-VALUE})")
    int reads;

    @Option(names = "--heap", description = "each reader's heap, committed up front (default: twice its share of the chunks + 512 MiB, as bench seed's workers)")
    String heap;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        OptionChecks.atLeast(spec, "--readers", readers, 1);
        OptionChecks.atLeast(spec, "--reads", reads, 1);
        if (!Files.isReadable(list)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "cannot read CHUNK_LIST '" + list + "'");
        }
        JvmFillFloor.run(list, readers, reads, heap != null ? heap : JvmFillFloor.defaultHeap(JvmFillFloor.chunks(list), readers), System.out);
        return 0;
    }
}
