package io.dask4j.bench.report;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The machine a report ran on: cores, memory, CPU model, Java, and the version line of each MPI launcher found
 * (absent ones are not listed). Immutable; {@link #probe()} reads it once.
 */
record MachineInfo(int cores, long memoryBytes, String cpuModel, String jvm, Map<String, String> mpis) {
    /** The MPIs benchmarks know, by name, with their launchers. */
    static final Map<String, String> LAUNCHERS = Map.of("openmpi", "mpirun.openmpi", "mpich", "mpirun.mpich");

    static MachineInfo probe() {
        long memory = ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                ? os.getTotalMemorySize() : -1;
        Map<String, String> mpis = new LinkedHashMap<>();
        for (String mpi : List.of("openmpi", "mpich")) {
            String version = versionOf(LAUNCHERS.get(mpi));
            if (version != null) {
                mpis.put(mpi, version);
            }
        }
        return new MachineInfo(Runtime.getRuntime().availableProcessors(), memory, readCpuModel(),
                System.getProperty("java.vm.name") + " " + Runtime.version(), mpis);
    }

    private static String readCpuModel() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo"), StandardCharsets.UTF_8).stream()
                    .filter(l -> l.startsWith("model name")).map(l -> l.substring(l.indexOf(':') + 1).strip())
                    .findFirst().orElse(System.getProperty("os.arch"));
        } catch (IOException e) {
            return System.getProperty("os.arch");
        }
    }

    /** The line of {@code launcher --version} that names the version, or null if it does not run. */
    private static String versionOf(String launcher) {
        try {
            Process p = new ProcessBuilder(launcher, "--version").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(20, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                return null;
            }
            return out.lines().filter(l -> l.contains("Open MPI") || l.strip().startsWith("Version:"))
                    .map(l -> l.strip().replaceAll("\\s+", " ")).findFirst().orElse(out.lines().findFirst().orElse("").strip());
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** The report's header lines (Markdown). */
    String toMarkdown() {
        StringBuilder b = new StringBuilder();
        b.append("- cores: ").append(cores).append('\n');
        b.append("- memory: ").append(memoryBytes < 0 ? "unknown" : String.format(java.util.Locale.ROOT, "%.1f GiB", memoryBytes / (double) (1L << 30))).append('\n');
        b.append("- CPU: ").append(cpuModel).append('\n');
        b.append("- Java: ").append(jvm).append('\n');
        if (mpis.isEmpty()) {
            b.append("- MPI: none installed\n");
        }
        mpis.forEach((name, version) -> b.append("- MPI ").append(name).append(": ").append(version).append('\n'));
        return b.toString();
    }
}
