package io.dask4j.examples.nodes;

import io.dask4j.launcher.it.LauncherJob;
import io.dask4j.launcher.it.LauncherJob.Impl;
import io.dask4j.launcher.it.LauncherJob.Result;
import io.dask4j.launcher.it.LauncherJob.Srun;
import io.dask4j.launcher.it.VirtualCluster;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

/**
 * A job of 16 ranks over 4 virtual nodes (4 a node, 192 MiB heaps), started by {@code srun} on the nodes' own Slurm
 * (Open MPI through PMIx, MPICH through PMI-2): every worker registers, the seed workload over small chunks (a 2,000 x 2,000 array in
 * 100 x 100 blocks, row-major over the 14 workers) gives a local cluster's sum, the job shuts down cleanly and
 * leaves no process. It prints its start-up and shutdown times and the scheduler's memory ({@code SCALE ...}
 * line; figures only, nothing asserts on them). Needs root and Slurm as {@link MultiNodeJobsTest} does.
 */
@Tag("scale")
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ScaleJobsTest {
    private static final int NODES = 4;
    private static final int RANKS_PER_NODE = 4;
    private static final int N = 2000;
    private static final int CHUNK = 100;
    private static final Pattern READY = Pattern.compile("READY at=(\\d+) workers=(\\d+)");
    private static final Pattern SEED = Pattern.compile("SEED sum=(\\S+) at=(\\d+)");
    private static final Pattern KIB = Pattern.compile("used (\\d+)K");

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(Srun.class)
    void sixteenRanksOverFourNodesStartRunTheSeedWorkloadAndShutDownCleanly(Srun srun) throws Exception {
        LauncherJob.assumeInstalled(srun == Srun.OPENMPI_PMIX ? Impl.OPENMPI : Impl.MPICH);
        int ranks = NODES * RANKS_PER_NODE;
        try (VirtualCluster cluster = VirtualCluster.up(NODES)) {
            List<String> hosts = new ArrayList<>();
            for (int i = 1; i <= NODES; i++) {
                hosts.add(cluster.node(i) + ":" + RANKS_PER_NODE);
            }
            cluster.slurm();
            Path release = dir.resolve("release");
            long launched = System.currentTimeMillis();
            LauncherJob job = LauncherJob.start(srun, cluster, String.join(",", hosts), ranks,
                    Map.of("JDK_JAVA_OPTIONS", "-Xmx192m"), dir, ScaleMain.class, dir.resolve("logs").toString(),
                    Integer.toString(N), Integer.toString(CHUNK), release.toString());
            String memory;
            try {
                assertThat(job.awaitText(job.output, "SEED sum=", 240)).as(job.output()).isTrue();
                memory = schedulerMemory(cluster, LauncherJob.pidOf(dir.resolve("logs/rank-0.log")));
            } finally {
                Files.createFile(release);
            }
            long released = System.currentTimeMillis();
            Result r = job.await(120);
            long ended = System.currentTimeMillis();

            assertThat(r.exitCode()).as(r.output()).isZero();
            Matcher ready = READY.matcher(r.output());
            Matcher seed = SEED.matcher(r.output());
            assertThat(ready.find() && seed.find()).as(r.output()).isTrue();
            assertThat(Integer.parseInt(ready.group(2))).isEqualTo(ranks - 2);
            double local = NodesMain.localSeedSum(N, CHUNK);
            assertThat(Double.parseDouble(seed.group(1))).isCloseTo(local, offset(Math.abs(local) * 1e-12));
            for (int rank = 0; rank < ranks; rank++) {
                String log = Files.readString(dir.resolve("logs/rank-" + rank + ".log"), StandardCharsets.UTF_8);
                assertThat(log).as("rank %d's log", rank).contains("host " + cluster.node(1 + rank / RANKS_PER_NODE) + ", pid")
                        .contains("finished (exit code 0)");
            }
            for (int i = 1; i <= NODES; i++) {
                assertThat(cluster.leftOn(i)).as("processes left on " + cluster.node(i)).isEmpty();
            }
            System.out.printf(Locale.ROOT, "SCALE %s %d ranks on %d nodes: start-up %.1f s (srun to every worker registered), "
                            + "workload %.1f s, shutdown %.1f s (release to srun's exit); scheduler %s%n", srun, ranks, NODES,
                    (Long.parseLong(ready.group(1)) - launched) / 1e3,
                    (Long.parseLong(seed.group(2)) - Long.parseLong(ready.group(1))) / 1e3, (ended - released) / 1e3, memory);
        }
    }

    /**
     * Rank 0's resident memory (now and at its peak) and its heap in use, found by the number its own node gave it
     * ({@code pid} in its log): what this machine calls it is in the {@code NSpid} line of its status.
     */
    private static String schedulerMemory(VirtualCluster cluster, long pidOnNode) throws Exception {
        for (long pid : cluster.pids(1)) {
            String status;
            try {
                status = Files.readString(Path.of("/proc", Long.toString(pid), "status"));
            } catch (IOException gone) {
                continue;
            }
            String nsPid = status.lines().filter(l -> l.startsWith("NSpid:")).findFirst().orElse("");
            if (nsPid.endsWith("\t" + pidOnNode)) {
                return "RSS " + field(status, "VmRSS") + " (peak " + field(status, "VmHWM") + "), heap " + heapUsed(pid);
            }
        }
        throw new AssertionError("no process of node 1 is rank 0 (pid " + pidOnNode + " there)");
    }

    private static String field(String status, String name) {
        long kib = status.lines().filter(l -> l.startsWith(name + ":")).map(l -> l.replaceAll("\\D", ""))
                .mapToLong(Long::parseLong).findFirst().orElse(-1);
        return String.format(Locale.ROOT, "%.0f MiB", kib / 1024.0);
    }

    /** What {@code jcmd PID GC.heap_info} says is used (the young and old generations of the serial collector). */
    private static String heapUsed(long pid) throws Exception {
        Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                Long.toString(pid), "GC.heap_info").redirectErrorStream(true).start();
        String said = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!jcmd.waitFor(30, TimeUnit.SECONDS) || jcmd.exitValue() != 0) {
            jcmd.destroyForcibly();
            return "unknown (jcmd: " + said.strip() + ")";
        }
        Matcher m = KIB.matcher(said);
        long kib = 0;
        while (m.find()) {
            kib += Long.parseLong(m.group(1));
        }
        return String.format(Locale.ROOT, "%.0f MiB used of 192 MiB", kib / 1024.0);
    }
}
