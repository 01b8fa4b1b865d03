package io.dask4j.bench.report;

import io.dask4j.comm.config.ConfigSource;
import io.dask4j.comm.config.Settings;
import io.dask4j.bench.comm.CommBenchCommand;
import io.dask4j.bench.mpi.MpiCommBenchCommand;
import io.dask4j.jobs.seed.SeedBenchCommand;
import io.dask4j.bench.tasks.TasksBenchCommand;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The benchmarks a report runs, one after the other (never two at once: they would measure each other), each with
 * its section's bound ({@link Bounds}): comm round trips by size over tcp and, under each installed MPI, over mpi
 * with the raw binding beside it (one job per size, so a size that gets stuck costs that size only); {@code bench
 * tasks} (map throughput and round-trip latency) on inproc, tcp and mpi; the seed workload on the same backends and,
 * when Python Dask is installed, on Dask. {@code quick} keeps inproc (and a small Dask seed), small sizes, few rounds.
 */
final class StandardSet {
    private static final List<String> SIZES = List.of("8", "1KiB", "64KiB", "1MiB", "16MiB");
    /** What the MPI comm job keeps for itself to report a stuck size and exit before the report's bound kills it. */
    private static final long MPI_JOB_MARGIN_SECONDS = 30;

    private StandardSet() {
    }

    static void run(boolean quick, MachineInfo machine, Bounds bounds, BenchProcess bench, ReportData data)
            throws InterruptedException {
        Path script = daskScript(data.notes);
        if (quick) {
            data.addComm("inproc", bench.run("comm-inproc", bounds.comm(), BenchProcess.java(CommBenchCommand.class,
                    "--backend", "inproc", "--json", "--sizes", "8,64KiB", "--iterations", "200")));
            data.addTasks("inproc", bench.run("tasks-inproc", bounds.tasks(), BenchProcess.java(TasksBenchCommand.class,
                    "--backend", "inproc", "--json", "--workload", "map,round-trip", "--n", "500", "--repeat", "1", "--rounds", "50")));
            data.addSeed("inproc", bench.run("seed-inproc", bounds.seed(), BenchProcess.java(SeedBenchCommand.class,
                    "--backend", "inproc", "--json", "--n", "400", "--chunk", "200", "--runs", "1", "--warmup", "0")));
            if (script != null) {
                data.addSeed("Python Dask", bench.run("seed-python-dask", bounds.python(), List.of(PYTHON,
                        script.toString(), "--json", "--n", "400", "--chunk", "200", "--runs", "1", "--layout", "mirrors")));
            }
            return;
        }
        data.addComm("tcp", bench.run("comm-tcp", bounds.comm(), BenchProcess.java(CommBenchCommand.class,
                "--backend", "tcp", "--json", "--sizes", String.join(",", SIZES), "--iterations", "2000")));
        long jobTimeout = Math.max(1, bounds.comm() - MPI_JOB_MARGIN_SECONDS);
        for (String mpi : machine.mpis().keySet()) {
            for (String size : SIZES) {
                data.addMpiComm(mpi, bench.run("comm-mpi-" + mpi + "-" + size, bounds.comm(),
                        BenchProcess.java(MpiCommBenchCommand.class, "--mpi", mpi, "--json", "--sizes", size,
                                "--iterations", "2000", "--idle-seconds", "1", "--timeout", Long.toString(jobTimeout))));
            }
        }
        List<String[]> backends = new ArrayList<>();
        backends.add(new String[]{"inproc", "inproc"});
        backends.add(new String[]{"tcp", "tcp"});
        for (String mpi : machine.mpis().keySet()) {
            // The client beside the scheduler: as many processes as the tcp local cluster runs (like with like).
            backends.add(new String[]{"mpi (" + mpi + ")", "mpi", "--mpi", mpi, "--client-rank", "0"});
        }
        for (String[] b : backends) {
            data.addTasks(b[0], bench.run("tasks-" + name(b), bounds.tasks(), BenchProcess.java(TasksBenchCommand.class,
                    args(b, "--json", "--workload", "map,round-trip", "--n", "20000", "--repeat", "3", "--rounds", "1000"))));
        }
        for (String[] b : backends) {
            data.addSeed(b[0], bench.run("seed-" + name(b), bounds.seed(), BenchProcess.java(SeedBenchCommand.class,
                    args(b, "--json", "--n", "8000", "--runs", "3"))));
        }
        if (script != null) {
            data.addSeed("Python Dask", bench.run("seed-python-dask", bounds.python(), List.of(PYTHON, script.toString(),
                    "--json", "--n", "8000", "--runs", "3", "--layout", "mirrors")));
        }
    }

    /**
     * The system's Python, where Debian installs {@code python3-distributed}; a {@code python3} first on the PATH
     * (a pyenv or virtualenv one) usually lacks Dask.
     */
    private static final String PYTHON = Files.isExecutable(Path.of("/usr/bin/python3")) ? "/usr/bin/python3" : "python3";

    private static String name(String[] backend) {
        return backend.length > 2 ? backend[1] + "-" + backend[3] : backend[1];
    }

    private static String[] args(String[] backend, String... rest) {
        List<String> all = new ArrayList<>(List.of("--backend", backend[1]));
        all.addAll(List.of(backend).subList(2, backend.length));
        all.addAll(List.of(rest));
        return all.toArray(String[]::new);
    }

    /**
     * The Python seed benchmark if dask4j's sources are here and Python has Dask distributed, else null, with a note
     * for the report saying why Python Dask did not run.
     */
    private static Path daskScript(List<String> notes) throws InterruptedException {
        String home = Settings.HOME.stringValue(ConfigSource.system(), null);
        Path script = home == null ? null : Path.of(home, "dask4j-bench", "src", "main", "python", "dask_seed_bench.py");
        if (script == null || !Files.isRegularFile(script)) {
            notes.add("Python Dask not run: its benchmark script is found through dask4j's sources (run `./dask4j bench report`).");
            return null;
        }
        try {
            Process p = new ProcessBuilder(PYTHON, "-c", "import dask.array, distributed; print(distributed.__version__)")
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0) {
                notes.add("Python Dask: " + PYTHON + ", distributed " + out + ".");
                return script;
            }
            notes.add("Python Dask not run: " + PYTHON + " cannot import dask.array and distributed (Debian: python3-distributed).");
        } catch (IOException e) {
            notes.add("Python Dask not run: " + PYTHON + " does not start (" + e.getMessage() + ").");
        }
        return null;
    }
}
