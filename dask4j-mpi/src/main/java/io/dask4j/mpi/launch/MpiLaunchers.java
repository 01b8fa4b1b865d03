package io.dask4j.mpi.launch;

import io.dask4j.mpi.binding.MpiLibrary;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * <p>Only the first {@code mpirun} and the first {@code mpiexec} on the PATH are asked: a job's ranks get the
 * environment of the launcher that starts them, so one shadowed by another MPI's would be the wrong one anyway.
 *
 * <p>Stateless apart from a per-process memo of the answers (asking a plain launcher starts a process). Any thread.
 */
public final class MpiLaunchers {

    /** The MPIs a job can be started with, in the order {@link #installed} prefers them. */
    static final List<String> KINDS = List.of("openmpi", "mpich");
    private static final List<String> PLAIN_NAMES = List.of("mpirun", "mpiexec");
    private static final long VERSION_TIMEOUT_SECONDS = 10;
    /** Enough of a {@code --version} answer to tell the MPI (they are a few lines). */
    private static final int VERSION_BYTES = 64 << 10;
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
        String found = FOUND.get(kind);
        if (found == null) {
            String program;
            try {
                program = find(kind, System.getenv().getOrDefault("PATH", ""));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null; // not remembered: an interrupted look says nothing about what is installed
            }
            found = FOUND.computeIfAbsent(kind, k -> program == null ? NONE : program);
        }
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

    /** Debian's name for the launcher of {@code kind} ({@code mpirun.openmpi}, {@code mpirun.mpich}). */
    static String debianName(String kind) {
        return "mpirun." + kind;
    }

    /** The sonames of {@code kind}'s library, Debian's first ({@link MpiLibrary}'s lists). */
    static List<String> sonames(String kind) {
        return kind.equals("openmpi") ? MpiLibrary.OPEN_MPI_NAMES : MpiLibrary.MPICH_NAMES;
    }

    /** {@link #find(String)} on the directories of {@code path}, without the memo. */
    static String find(String kind, String path) throws InterruptedException {
        String debianName = debianName(kind);
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
    public static String kind(String mpi) {
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

    /**
     * The MPI library installed beside a plain launcher ({@code <its directory>/../lib} or {@code ../lib64}), as an
     * absolute path, or null. A site's MPI found by its programs' run paths need not be on {@code LD_LIBRARY_PATH},
     * where a rank loading a library by name would look; without this the rank could load another MPI's library.
     */
    static String libraryBeside(String kind, String launcher) {
        Path bin = Path.of(launcher).toAbsolutePath().getParent();
        if (bin == null || bin.getParent() == null) {
            return null;
        }
        for (String dir : List.of("lib", "lib64")) {
            for (String name : sonames(kind)) {
                Path library = bin.getParent().resolve(dir).resolve(name);
                if (Files.isRegularFile(library)) {
                    return library.normalize().toString();
                }
            }
        }
        return null;
    }

    /**
     * What {@code program --version} printed (both streams, at most {@link #VERSION_BYTES}), or "" if it failed or
     * did not finish within {@link #VERSION_TIMEOUT_SECONDS}. The answer goes to a file, not a pipe: a launcher
     * that leaves a child holding its output cannot keep a read from ending, and a long answer cannot block it.
     */
    private static String versionText(File program) throws InterruptedException {
        Path answer = null;
        Process p = null;
        try {
            answer = Files.createTempFile("dask4j-mpirun-version-", ".txt");
            p = new ProcessBuilder(program.getPath(), "--version").redirectErrorStream(true)
                    .redirectOutput(answer.toFile()).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .start();
            if (!p.waitFor(VERSION_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                return "";
            }
            try (InputStream in = Files.newInputStream(answer)) {
                return new String(in.readNBytes(VERSION_BYTES), StandardCharsets.UTF_8);
            }
        } catch (IOException e) {
            return "";
        } finally {
            if (p != null && p.isAlive()) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
            }
            if (answer != null) {
                try {
                    Files.deleteIfExists(answer);
                } catch (IOException ignored) {
                    // a few bytes left in the temporary directory
                }
            }
        }
    }
}
