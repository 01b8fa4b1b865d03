package io.dask4j.bench;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Finds the {@code mpirun} of an MPI on the PATH, for the commands that start MPI jobs themselves ({@code demo},
 * {@code bench}). Debian installs Open MPI's as {@code mpirun.openmpi} and MPICH's as {@code mpirun.mpich}, which
 * say which MPI they start by their name; an HPC site's module, Spack or a vendor MPI gives a plain {@code mpirun}
 * or {@code mpiexec}, whose {@code --version} says it ("mpirun (Open MPI) 4.1.4", "mpiexec (OpenRTE) ...", or
 * MPICH's and Intel MPI's "HYDRA build details").
 *
 * <p>Stateless apart from a per-process memo of the answers (asking a plain launcher starts a process). Any thread.
 */
public final class MpiLaunchers {

    /** The MPIs a job can be started with, in the order {@link #installed} prefers them. */
    static final List<String> KINDS = List.of("openmpi", "mpich");
    private static final List<String> PLAIN_NAMES = List.of("mpirun", "mpiexec");
    private static final long VERSION_TIMEOUT_SECONDS = 10;
    private static final Map<String, String> FOUND = new ConcurrentHashMap<>();
    private static final String NONE = "";

    private MpiLaunchers() {
    }

    /**
     * The program that starts jobs of {@code mpi} ({@code openmpi} or {@code mpich}, any case): its Debian name
     * if that is on the PATH, else a plain {@code mpirun} or {@code mpiexec} of that MPI (with its directory, so
     * that a job starts the program that answered); null if there is none.
     *
     * @throws IllegalArgumentException for another {@code mpi}
     */
    public static String find(String mpi) {
        String kind = kind(mpi);
        String found = FOUND.computeIfAbsent(kind, k -> {
            String program = find(k, System.getenv().getOrDefault("PATH", ""));
            return program == null ? NONE : program;
        });
        return found.equals(NONE) ? null : found;
    }

    /** The first MPI with a launcher on the PATH, Open MPI first ({@code openmpi} or {@code mpich}), or null. */
    public static String installed() {
        for (String kind : KINDS) {
            if (find(kind) != null) {
                return kind;
            }
        }
        return null;
    }

    /** {@link #find(String)} on the directories of {@code path}, without the memo. */
    static String find(String kind, String path) {
        String debianName = "mpirun." + kind;
        if (onPath(debianName, path) != null) {
            return debianName;
        }
        for (String plain : PLAIN_NAMES) {
            File program = onPath(plain, path);
            if (program != null && kind.equals(kindOf(versionText(program)))) {
                return program.getPath();
            }
        }
        return null;
    }

    /**
     * Which MPI a launcher belongs to, from what its {@code --version} printed: {@code openmpi}, {@code mpich}
     * (MPICH's Hydra, also Intel MPI's, which shares MPICH's ABI), or null.
     */
    static String kindOf(String versionText) {
        if (versionText.contains("Open MPI") || versionText.contains("OpenRTE")) {
            return "openmpi";
        }
        if (versionText.contains("HYDRA") || versionText.contains("MPICH") || versionText.contains("Intel(R) MPI")) {
            return "mpich";
        }
        return null;
    }

    /** {@code mpi} in lower case if it is a kind this class knows. */
    static String kind(String mpi) {
        String kind = mpi.toLowerCase(Locale.ROOT);
        if (!KINDS.contains(kind)) {
            throw new IllegalArgumentException("unknown --mpi '" + mpi + "': expected openmpi or mpich");
        }
        return kind;
    }

    private static File onPath(String program, String path) {
        for (String dir : path.split(File.pathSeparator)) {
            File candidate = new File(dir, program);
            if (!dir.isEmpty() && candidate.isFile() && candidate.canExecute()) {
                return candidate;
            }
        }
        return null;
    }

    /** What {@code program --version} printed (both streams), or "" if it failed or took too long. */
    private static String versionText(File program) {
        try {
            Process p = new ProcessBuilder(program.getPath(), "--version").redirectErrorStream(true)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
            // Wait, then read: --version prints a few lines, far less than a pipe holds, so the program never
            // blocks on its output; the wait bounds one that hangs.
            if (!p.waitFor(VERSION_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "";
            }
            return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }
}
