package io.dask4j.launcher.it;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A cluster of virtual nodes made by the repository's {@code .ci/vcluster} (network namespaces with their own
 * hostname and {@code /dev/shm}, on a bridge of a private subnet), for jobs that span nodes. Needs root: without
 * it the test is skipped, unless {@code DASK4J_REQUIRE_NETNS=1} (CI) makes that a failure.
 *
 * <p>One cluster serves a whole test class ({@code @BeforeAll}/{@code @AfterAll}); its owner is this JVM, so a
 * JVM that dies before {@link #close} leaves a cluster that the next {@code vcluster up} removes. Methods run
 * the script and wait for it; call them from the test thread.
 */
public final class VirtualCluster implements AutoCloseable {
    private static final long SCRIPT_SECONDS = 60;

    private final Path script;
    private final String id;
    private final List<String> nodes;
    private final List<String> addresses;
    private final String bridge;
    private final String subnet;
    private Path slurmConf;

    private VirtualCluster(Path script, String id, List<String> nodes, List<String> addresses, String bridge, String subnet) {
        this.script = script;
        this.id = id;
        this.nodes = nodes;
        this.addresses = addresses;
        this.bridge = bridge;
        this.subnet = subnet;
    }

    /** Makes a cluster of {@code count} nodes, or skips the test where that cannot be done (see the class). */
    public static VirtualCluster up(int count) throws IOException, InterruptedException {
        Path script = repositoryRoot().resolve(".ci/vcluster");
        boolean required = "1".equals(System.getenv("DASK4J_REQUIRE_NETNS"));
        String[] answer = run(script, "up", Integer.toString(count), "--owner", Long.toString(ProcessHandle.current().pid()));
        if (!answer[0].equals("0")) {
            if (required) {
                throw new AssertionError("vcluster up failed and DASK4J_REQUIRE_NETNS=1: " + answer[1]);
            }
            Assumptions.abort("cannot make virtual nodes (needs root, iproute2 and util-linux): " + answer[1].strip());
        }
        String id = null;
        String bridge = null;
        String subnet = null;
        List<String> nodes = new ArrayList<>();
        List<String> addresses = new ArrayList<>();
        for (String line : answer[1].lines().toList()) {
            String[] words = line.split(" ");
            switch (words[0]) {
                case "cluster" -> id = words[1];
                case "node" -> {
                    nodes.add(words[1]);
                    addresses.add(words[2]);
                }
                case "bridge" -> bridge = words[1];
                case "subnet" -> subnet = words[1];
                default -> { }
            }
        }
        if (id == null || nodes.size() != count) {
            throw new AssertionError("vcluster up printed no cluster of " + count + " nodes: " + answer[1]);
        }
        return new VirtualCluster(script, id, List.copyOf(nodes), List.copyOf(addresses), bridge, subnet);
    }

    /** The name of node {@code i} (from 1), also its hostname. */
    public String node(int i) {
        return nodes.get(i - 1);
    }

    /** The address of node {@code i} (from 1) on the cluster's subnet. */
    public String address(int i) {
        return addresses.get(i - 1);
    }

    /** The bridge joining the nodes, on the launching side (MPICH's {@code -iface}). */
    public String bridge() {
        return bridge;
    }

    /** The nodes' subnet, e.g. {@code 10.232.1.0/24} (Open MPI's {@code btl_tcp_if_include}). */
    public String subnet() {
        return subnet;
    }

    /** The rsh agent that logs in to a node (Open MPI's {@code plm_rsh_agent}, MPICH's {@code -launcher-exec}). */
    public String rshAgent() {
        return script.resolveSibling("vcluster-rsh").toString();
    }

    /** The command line that runs {@code command} on node {@code i}, as a login there would. */
    public List<String> onNode(int i, List<String> command) {
        List<String> line = new ArrayList<>(List.of(script.toString(), "exec", node(i)));
        line.add(String.join(" ", command.stream().map(VirtualCluster::quoted).toList()));
        return line;
    }

    /** Drops node {@code i}'s link: its packets vanish, without FIN or RST. */
    public void cut(int i) throws IOException, InterruptedException {
        check("cut", node(i));
    }

    /** Brings node {@code i}'s link back. */
    public void restore(int i) throws IOException, InterruptedException {
        check("restore", node(i));
    }

    /** SIGKILLs every process on node {@code i} at once. */
    public void killAll(int i) throws IOException, InterruptedException {
        check("kill", node(i));
    }

    /** The pids of the processes running on node {@code i}. */
    public List<Long> pids(int i) throws IOException, InterruptedException {
        return check("pids", node(i)).lines().filter(l -> !l.isBlank()).map(Long::parseLong).toList();
    }

    /**
     * What still runs on node {@code i} after a job, its slurmd aside (the programs' paths): waits up to 10 s for
     * it to be nothing (a login's shell or a Slurm step may still be exiting).
     */
    public List<String> leftOn(int i) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        List<String> left;
        do {
            left = pids(i).stream().map(pid -> ProcessHandle.of(pid).flatMap(p -> p.info().command()).orElse("pid " + pid))
                    .filter(command -> !command.matches(".*/slurmd(-wlm)?")).toList();
            if (!left.isEmpty()) {
                Thread.sleep(100);
            }
        } while (!left.isEmpty() && System.nanoTime() - deadline < 0);
        return left;
    }

    /**
     * Starts a Slurm of the cluster's own ({@code .ci/vcluster-slurm}: a slurmd on every node, a slurmctld on this
     * machine), once, and returns its configuration file: {@code srun} reaches it with {@code SLURM_CONF} set to
     * it. Skips the test where Slurm is not installed, unless {@code DASK4J_REQUIRE_SLURM=1} makes that a failure.
     */
    public synchronized Path slurm() throws IOException, InterruptedException {
        if (slurmConf == null) {
            String[] answer = run(script.resolveSibling("vcluster-slurm"), "up", id);
            if (!answer[0].equals("0")) {
                if ("1".equals(System.getenv("DASK4J_REQUIRE_SLURM"))) {
                    throw new AssertionError("vcluster-slurm up failed and DASK4J_REQUIRE_SLURM=1: " + answer[1]);
                }
                Assumptions.abort("cannot start Slurm on the virtual nodes: " + answer[1].strip());
            }
            slurmConf = answer[1].lines().filter(l -> l.startsWith("slurm-conf ")).map(l -> Path.of(l.substring(11)))
                    .findFirst().orElseThrow(() -> new AssertionError("vcluster-slurm up printed no slurm-conf: " + answer[1]));
        }
        return slurmConf;
    }

    /** Removes the cluster and every process on its nodes (its Slurm too). */
    @Override
    public void close() throws IOException, InterruptedException {
        check("down", id);
    }

    private String check(String... args) throws IOException, InterruptedException {
        String[] answer = run(script, args);
        if (!answer[0].equals("0")) {
            throw new AssertionError("vcluster " + String.join(" ", args) + " failed: " + answer[1]);
        }
        return answer[1];
    }

    /** {exit code, output} of the script; the output goes through a file, as the node holders outlive the call. */
    private static String[] run(Path script, String... args) throws IOException, InterruptedException {
        List<String> line = new ArrayList<>(List.of(script.toString()));
        line.addAll(List.of(args));
        Path out = Files.createTempFile("vcluster-", ".txt");
        try {
            Process p = new ProcessBuilder(line).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            if (!p.waitFor(SCRIPT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new String[]{"timeout", "vcluster " + String.join(" ", args) + " did not end within " + SCRIPT_SECONDS + " s"};
            }
            return new String[]{Integer.toString(p.exitValue()), Files.readString(out, StandardCharsets.UTF_8)};
        } finally {
            Files.deleteIfExists(out);
        }
    }

    private static String quoted(String word) {
        return "'" + word.replace("'", "'\\''") + "'";
    }

    /** The checkout's root: tests run in their module's directory. */
    private static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isRegularFile(dir.resolve(".ci/vcluster"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new AssertionError("no .ci/vcluster above " + Path.of("").toAbsolutePath());
        }
        return dir;
    }
}
