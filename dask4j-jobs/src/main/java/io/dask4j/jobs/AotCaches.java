package io.dask4j.jobs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

/**
 * JDK 25 ahead-of-time caches (JEP 483, 514, 515) for the JVMs of a benchmark job, one cache per role
 * (the driver of a tcp job, the scheduler rank, the client rank, a worker). A cache holds the classes the
 * role loaded and linked and the method profiles it gathered in a training run, so that a later JVM of the
 * same role starts with them and compiles its hot code early instead of re-learning it in every job.
 *
 * <p><b>Why per role.</b> The JVMs of a job run different code: an mpi job has a scheduler rank, a client
 * rank and worker ranks, a tcp job one driver JVM (scheduler and client) and worker JVMs; JIT compilation is
 * about a quarter of a seed job's CPU on a small machine. In a trial on the 2-core VM, one cache trained by an
 * inproc run and given to every JVM sped up the tcp job but not the mpi one; a cache per role sped up both.
 *
 * <p><b>Life cycle.</b> A job's caches live in a directory named by a hash of everything a cache depends on
 * ({@link #forJob}): the JDK, the class path (each entry's size and time, so a rebuild trains anew), the
 * JVM options and the workload. If a role's cache is missing, its JVMs train ({@code -XX:AOTCacheOutput}
 * to a staging file named by process id: the JVM writes it when it exits); after a successful job, {@link
 * #commit} keeps one staging file per role as the role's cache and deletes the rest; {@link #discard}
 * deletes them after a failed one. Older job directories beyond {@link #KEPT_JOBS} are deleted; only
 * directories that are surely ours (a job hash for a name, nothing but caches inside), since the root may be
 * any directory a user names with {@code --aot-cache}.
 *
 * <p>Not thread-safe: one job at a time, on the thread that launches it. Two processes training the same
 * job at once are harmless: the rename is atomic and either file is a valid cache.
 */
public final class AotCaches {

    /** Job directories kept under the root; the least recently used beyond these are deleted. */
    static final int KEPT_JOBS = 8;
    private static final String CACHE_SUFFIX = ".aot";
    private static final String STAGING_INFIX = ".staging-";
    /** The name of a job directory: {@link #hash} of its key parts. */
    private static final java.util.regex.Pattern JOB_DIRECTORY = java.util.regex.Pattern.compile("[0-9a-f]{16}");

    /** No caches: every JVM starts cold. */
    public static final AotCaches OFF = new AotCaches(null);

    private final Path dir;

    private AotCaches(Path dir) {
        this.dir = dir;
    }

    /**
     * The caches of one job under {@code root}: {@code root/<hash of key parts>/<role>.aot}. Creates the
     * directory (and prunes old siblings).
     *
     * @param classPath the class path of the job's JVMs: the JVM checks that a cache's jars are unchanged
     * @param keyParts everything the caches depend on besides the JDK and the class path, which are added here
     * @throws IOException if the directory cannot be created
     */
    public static AotCaches forJob(Path root, String classPath, List<String> keyParts) throws IOException {
        List<String> parts = new ArrayList<>(keyParts);
        parts.add(Runtime.version().toString());
        parts.add(System.getProperty("java.home"));
        for (String entry : classPath.split(java.io.File.pathSeparator)) {
            parts.add(entry + "@" + describe(Path.of(entry)));
        }
        Path dir = root.resolve(hash(parts));
        Files.createDirectories(dir);
        Files.setLastModifiedTime(dir, FileTime.fromMillis(System.currentTimeMillis()));
        prune(root, dir);
        return new AotCaches(dir);
    }

    /**
     * Why a JVM running {@code classPath} cannot have an AOT cache, or null if it can: the JDK stores classes
     * from jars only, and a training JVM whose class path holds a non-empty directory (an IDE's or Maven's
     * {@code target/classes}) fails as it exits ("Cannot have non-empty directory in paths").
     */
    public static String unsupportedReason(String classPath) {
        for (String entry : classPath.split(java.io.File.pathSeparator)) {
            Path path = Path.of(entry.isEmpty() ? "." : entry);
            if (Files.isDirectory(path) && !isEmptyDirectory(path)) {
                return "the class path holds a directory (" + entry + "), and the JDK's AOT cache takes jars only";
            }
        }
        return null;
    }

    private static boolean isEmptyDirectory(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.findAny().isEmpty();
        } catch (IOException e) {
            return false;
        }
    }

    /** The default root: {@code $XDG_CACHE_HOME/dask4j/aot}, else {@code ~/.cache/dask4j/aot}. */
    public static Path defaultRoot() {
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
        return base.resolve("dask4j").resolve("aot");
    }

    public boolean enabled() {
        return dir != null;
    }

    /** The directory of this job's caches; null when off. */
    public Path directory() {
        return dir;
    }

    /** Whether {@code role} has a cache from an earlier job. */
    public boolean has(String role) {
        return dir != null && Files.isRegularFile(cacheFile(role));
    }

    /**
     * The JVM options for a JVM of {@code role}: use its cache if there is one; else, if {@code train}, train
     * it (write a staging file when the JVM exits); else none.
     */
    public List<String> jvmArgs(String role, boolean train) {
        if (dir == null) {
            return List.of();
        }
        if (has(role)) {
            return List.of("-XX:AOTCache=" + cacheFile(role));
        }
        // %p: the JVM puts its process id there, so that JVMs of one role given the same options (the workers of
        // a tcp job) do not write one file at once.
        // -Xlog: training otherwise prints a warning for each class it cannot store (hundreds of picocli's).
        if (!train) {
            return List.of();
        }
        return List.of("-XX:AOTCacheOutput=" + dir.resolve(role + STAGING_INFIX + "%p" + CACHE_SUFFIX), "-Xlog:aot*=off,cds*=off");
    }

    /**
     * After a successful job: each role that trained keeps one of its staging files as its cache; the others
     * are deleted. Returns the roles that gained a cache.
     */
    public List<String> commit() throws IOException {
        List<String> gained = new ArrayList<>();
        if (dir == null) {
            return gained;
        }
        for (Path staging : stagingFiles()) {
            String name = staging.getFileName().toString();
            String role = name.substring(0, name.indexOf(STAGING_INFIX));
            if (!has(role) && Files.size(staging) > 0) {
                Files.move(staging, cacheFile(role), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                gained.add(role);
            } else {
                Files.deleteIfExists(staging);
            }
        }
        return gained;
    }

    /** After a failed job: deletes the staging files (a JVM cut short may have left half a cache). */
    public void discard() {
        if (dir == null) {
            return;
        }
        try {
            for (Path staging : stagingFiles()) {
                Files.deleteIfExists(staging);
            }
        } catch (IOException ignored) {
            // a leftover staging file is never used as a cache; the next commit or discard retries
        }
    }

    private Path cacheFile(String role) {
        return dir.resolve(role + CACHE_SUFFIX);
    }

    private List<Path> stagingFiles() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().contains(STAGING_INFIX)).sorted().toList();
        }
    }

    private static String describe(Path entry) {
        try {
            return Files.size(entry) + "@" + Files.getLastModifiedTime(entry).toMillis();
        } catch (IOException e) {
            return "missing";
        }
    }

    private static String hash(List<String> parts) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (String part : parts) {
                sha.update(part.getBytes(StandardCharsets.UTF_8));
                sha.update((byte) 0);
            }
            return HexFormat.of().formatHex(sha.digest(), 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JDK", e);
        }
    }

    /** Deletes all but the {@link #KEPT_JOBS} most recently used job directories under {@code root}. */
    private static void prune(Path root, Path keep) {
        List<Path> old;
        try (Stream<Path> dirs = Files.list(root)) {
            old = dirs.filter(d -> !d.equals(keep)).filter(AotCaches::isJobDirectory)
                    .sorted(Comparator.comparing(AotCaches::lastUsed).reversed()).skip(KEPT_JOBS - 1).toList();
        } catch (IOException ignored) {
            return;   // pruning is housekeeping: the caches in use are unaffected
        }
        for (Path d : old) {
            try {
                deleteCaches(d);
            } catch (IOException ignored) {
                // in use by another job, or not ours after all: leave it
            }
        }
    }

    /** A directory this class made: named by a job hash, holding nothing but cache files. */
    private static boolean isJobDirectory(Path dir) {
        if (!Files.isDirectory(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)
                || !JOB_DIRECTORY.matcher(dir.getFileName().toString()).matches()) {
            return false;
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.allMatch(f -> Files.isRegularFile(f, java.nio.file.LinkOption.NOFOLLOW_LINKS)
                    && f.getFileName().toString().endsWith(CACHE_SUFFIX));
        } catch (IOException e) {
            return false;
        }
    }

    private static FileTime lastUsed(Path dir) {
        try {
            return Files.getLastModifiedTime(dir);
        } catch (IOException e) {
            return FileTime.fromMillis(0);
        }
    }

    /** Deletes the cache files of a job directory, then the directory if nothing else appeared in it. */
    private static void deleteCaches(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.toList()) {
                if (f.getFileName().toString().endsWith(CACHE_SUFFIX)) {
                    Files.deleteIfExists(f);
                }
            }
        }
        Files.deleteIfExists(dir);
    }
}
